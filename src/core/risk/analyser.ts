import type { Tree } from "web-tree-sitter";
import { copyTree, type SyntaxNode as Node } from "./syntax.ts";
import { commandName, innerCmd, optionsOf, type Cmd, type Redirect, type Stdin } from "./command.ts";
import { fileWrites } from "./effects.ts";
import { LIMITS } from "./limits.ts";
import { hasFlag, parseOptions, type OptionSpec } from "./options.ts";
import { normalisePath } from "./paths.ts";
import type { Rule } from "./rule.ts";
import { scanSed } from "./sed.ts";
import { DOWNLOADERS, INTERPRETERS, SHELLS, TRANSFORMERS, baseLevel, knownNames } from "./table.ts";
import type { FoundCommand, Signal, Span } from "./types.ts";
import { literalArg, resolveWord, staticOutput, type Arg } from "./words.ts";
import { WRAPPERS } from "./wrappers.ts";

/**
 * The parser the analyser needs: parse a string into a tree-sitter-bash tree, or return null when the
 * parse was cancelled (time budget). The adapter (src/adapters/shell-parser.ts) provides it.
 */
export interface ShellParser {
  parse(text: string): Tree | null;
}

/** Rules indexed for the analyser: by id (structural and command rules) and by command name. */
export interface RuleBook {
  byId: ReadonlyMap<string, Rule>;
  byName: ReadonlyMap<string, readonly Rule[]>;
  prefixes: readonly { prefix: string; rule: Rule }[];
  everyCommand: readonly Rule[];
}

/** Mutable state of one analysis (one input line, all nested parses). */
interface Ctx {
  parser: ShellParser;
  rules: RuleBook;
  input: string;
  ascii: boolean;
  signals: Signal[];
  seen: Set<string>;
  commands: FoundCommand[];
  nodes: number;
  nesting: number;
  parses: number;
  parsedChars: number;
  words: number;
  cmds: number;
  complex: boolean;
}

/** Lexical state: what the shell knows at this point of the line. Subshells get a copy. */
interface Scope {
  depth: number;
  /** Span in the outer input that all findings of a re-parsed string point at. */
  origin: Span | null;
  vars: Map<string, string>;
  cwd: string | undefined;
  written: Map<string, string>;
  functions: Set<string>;
  via: string[];
}

/** Raw findings of one analysis, before the verdict is computed. */
export interface Findings {
  signals: Signal[];
  commands: FoundCommand[];
}

/** Analyses `text` (already size-checked by the caller) and returns every signal and command found. */
export function analyse(text: string, parser: ShellParser, rules: RuleBook, interpreter: string): Findings {
  const ctx: Ctx = {
    parser, rules, input: text, ascii: !/[^\x00-\x7f]/.test(text), signals: [], seen: new Set(), commands: [],
    nodes: 0, nesting: 0, parses: 0, parsedChars: 0, words: 0, cmds: 0, complex: false,
  };
  const scope: Scope = { depth: 0, origin: null, vars: new Map(), cwd: undefined, written: new Map(), functions: new Set(), via: [] };
  const shell = commandName(interpreter || "bash");
  if (!SHELLS.has(shell)) {
    // The line is fed to an interpreter the engine cannot read: it is code nobody analysed.
    emit(ctx, scope, "opaque_code", null, `interpreter "${shell}" is not a shell the engine can analyse`);
  } else {
    analyseText(text, ctx, scope);
  }
  return { signals: ctx.signals, commands: ctx.commands };
}

// ---------------------------------------------------------------------------------------------- signals

function toBytes(ctx: Ctx, index: number): number {
  if (ctx.ascii) return index;
  let bytes = 0;
  for (let i = 0; i < index && i < ctx.input.length; i++) {
    const c = ctx.input.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) { bytes += 4; i++; }
    else bytes += 3;
  }
  return bytes;
}

function spanOf(ctx: Ctx, scope: Scope, node: Node | null): Span {
  if (scope.origin) return scope.origin;
  if (!node) return { start: 0, end: toBytes(ctx, ctx.input.length) };
  return { start: toBytes(ctx, node.startIndex), end: toBytes(ctx, node.endIndex) };
}

function emit(ctx: Ctx, scope: Scope, id: string, node: Node | null, detail?: string): void {
  const rule = ctx.rules.byId.get(id);
  if (!rule) throw new Error(`risk engine: signal "${id}" has no rule`);
  const span = spanOf(ctx, scope, node);
  const key = `${id}@${span.start}:${span.end}`;
  if (ctx.seen.has(key)) return;
  ctx.seen.add(key);
  ctx.signals.push({ id, severity: rule.severity, reason: detail ? `${rule.reason} (${detail})` : rule.reason, span });
}

function tooComplex(ctx: Ctx, scope: Scope, node: Node | null, why: string): void {
  ctx.complex = true;
  emit(ctx, scope, "too_complex", node, why);
}

// ---------------------------------------------------------------------------------------------- parsing

function analyseText(text: string, ctx: Ctx, scope: Scope): void {
  if (ctx.complex) return;
  if (scope.depth > LIMITS.maxDepth) { tooComplex(ctx, scope, null, `strings nested deeper than ${LIMITS.maxDepth}`); return; }
  if (++ctx.parses > LIMITS.maxParses) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxParses} nested strings`); return; }
  ctx.parsedChars += text.length;
  if (ctx.parsedChars > LIMITS.maxParsedChars) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxParsedChars} characters to parse`); return; }
  const shape = preScan(text);
  if (shape.nesting > LIMITS.maxNesting) { tooComplex(ctx, scope, null, `brackets nested deeper than ${LIMITS.maxNesting}`); return; }
  if (shape.tokens > LIMITS.maxTokens) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxTokens} operators, brackets and quotes`); return; }
  if (shape.words > LIMITS.maxWords) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxWords} words`); return; }
  let tree: Tree | null;
  try {
    tree = ctx.parser.parse(text);
  } catch {
    tree = null;
  }
  if (!tree) { tooComplex(ctx, scope, null, "parse budget exceeded"); return; }
  let copy: ReturnType<typeof copyTree> = null;
  try {
    if (tree.rootNode.descendantCount + ctx.nodes <= LIMITS.maxNodes) copy = copyTree(tree, text, LIMITS.maxNodes - ctx.nodes);
  } finally {
    tree.delete();
  }
  if (!copy) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxNodes} syntax nodes`); return; }
  ctx.nodes += copy.count;
  const root = copy.root;
  if (copy.hasError) emit(ctx, scope, "unparseable", firstError(root) ?? root);
  walk(root, ctx, scope);
  const alt = runtimeRewrite(text);
  if (alt !== null && !ctx.complex) analyseText(alt, ctx, { ...scope, depth: scope.depth + 1, origin: scope.origin ?? spanOf(ctx, scope, null) });
}

/**
 * Upper estimates read before parsing, so pathological inputs never reach the parser: bracket nesting
 * (outside single quotes), shell tokens likely to become syntax nodes (operators, brackets, quotes, `$`),
 * and whitespace-separated words. Quoting mistakes only make the estimates larger.
 */
function preScan(text: string): { nesting: number; tokens: number; words: number } {
  let depth = 0;
  let nesting = 0;
  let tokens = 0;
  let words = 0;
  let single = false;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 0x20 || c === 0x09 || c === 0x0a;
    if (!space && !inWord) words++;
    inWord = !space;
    if (TOKEN[c] === 1) tokens++;
    if (c === 0x27) single = !single;
    else if (single) continue;
    else if (c === 0x28 || c === 0x7b || c === 0x5b) { if (++depth > nesting) nesting = depth; }
    else if (c === 0x29 || c === 0x7d || c === 0x5d) { if (depth > 0) depth--; }
    else if (c === 0x5c) i++;
  }
  return { nesting, tokens, words };
}

const TOKEN = new Uint8Array(128);
for (const ch of "(){}[]$|;&\n'\"`<>") TOKEN[ch.charCodeAt(0)] = 1;

function firstError(node: Node): Node | null {
  if (node.isError || node.isMissing) return node;
  for (const c of node.children) {
    if (c?.hasError || c?.isMissing) {
      const hit = firstError(c);
      if (hit) return hit;
    }
  }
  return null;
}

/**
 * The line as the shell will see it after expansions the grammar keeps inside one word: `${IFS}` becomes
 * a space and unquoted `{a,b}` brace lists become separate words. Analysed as well (never instead), so
 * `rm${IFS}-rf${IFS}/` and `{rm,-rf,/}` are judged as `rm -rf /`. Returns null when nothing changes.
 */
function runtimeRewrite(text: string): string | null {
  let out = text.replace(/\$\{IFS\}|\$IFS\b/g, " ");
  out = out.replace(/(^|[\s;&|(])([^\s;&|()'"{}]*)\{([^{}\s'"]*,[^{}\s'"]*)\}([^\s;&|()'"]*)/g, (_m, lead: string, pre: string, list: string, post: string) =>
    lead + list.split(",").map((x) => pre + x + post).join(" "));
  return out === text ? null : out;
}

// ---------------------------------------------------------------------------------------------- walking

function childScope(scope: Scope): Scope {
  return { ...scope, vars: new Map(scope.vars), written: new Map(scope.written), functions: new Set(scope.functions) };
}

const LEAVES = new Set(["word", "raw_string", "string_content", "number", "comment", "variable_name", "heredoc_start", "heredoc_end", "file_descriptor", "test_operator", "regex", "special_variable_name", "ansi_c_string"]);

function walk(node: Node, ctx: Ctx, scope: Scope): void {
  if (ctx.complex) return;
  if (ctx.nesting >= LIMITS.maxNesting) { tooComplex(ctx, scope, node, `syntax nested deeper than ${LIMITS.maxNesting}`); return; }
  ctx.nesting++;
  try {
    walkNode(node, ctx, scope);
  } finally {
    ctx.nesting--;
  }
}

function walkNode(node: Node, ctx: Ctx, scope: Scope): void {
  switch (node.type) {
    case "command":
      runStatement(node, ctx, scope, { kind: "none" });
      return;
    case "redirected_statement":
      runStatement(node, ctx, scope, { kind: "none" });
      return;
    case "pipeline":
      runPipeline(flattenPipeline(node), ctx, scope, null);
      return;
    case "variable_assignment":
      assignment(node, ctx, scope);
      return;
    case "declaration_command":
      declaration(node, ctx, scope);
      return;
    case "function_definition":
      functionDefinition(node, ctx, scope);
      return;
    case "command_substitution":
      if (node.text.startsWith("`")) {
        // Bash ends `…` at the first unescaped backquote and removes \` \\ \$ before parsing the inside, so
        // `\`cmd\`` nests a substitution; re-read it from the source when backslashes are involved.
        const raw = backquoteBody(node.source, node.startIndex);
        if (raw.includes("\\")) analyseText(raw.replace(/\\([`\\$])/g, "$1"), ctx, { ...childScope(scope), depth: scope.depth + 1, origin: spanOf(ctx, scope, node) });
      }
      for (const c of node.namedChildren) if (c) walk(c, ctx, childScope(scope));
      return;
    case "subshell":
    case "process_substitution":
      for (const c of node.namedChildren) if (c) walk(c, ctx, childScope(scope));
      return;
    default:
      if (LEAVES.has(node.type)) return;
      for (const c of node.namedChildren) if (c) walk(c, ctx, scope);
  }
}

function flattenPipeline(node: Node): Node[] {
  const out: Node[] = [];
  for (const c of node.namedChildren) {
    if (!c || c.type === "comment") continue;
    if (c.type === "pipeline") out.push(...flattenPipeline(c));
    else out.push(c);
  }
  return out;
}

function runPipeline(stages: Node[], ctx: Ctx, scope: Scope, first: Cmd | null): void {
  let prev: Cmd | null = first;
  let started = first !== null;
  let prevNode: Node | null = null;
  for (const stage of stages) {
    const stdin: Stdin = started ? { kind: "pipe", from: prev, fromNode: prevNode } : { kind: "none" };
    prev = runStatement(stage, ctx, scope, stdin);
    prevNode = stage;
    started = true;
  }
}

const lookupIn = (scope: Scope) => (name: string): string | undefined => scope.vars.get(name);

function argOf(node: Node, ctx: Ctx, scope: Scope): Arg {
  const arg = resolveWord(node, lookupIn(scope));
  for (const sub of arg.subs) walk(sub, ctx, scope);
  return arg;
}

/**
 * Runs one pipeline stage or statement. Returns the simple command when the stage is one (so the next
 * pipeline stage knows what feeds it), or null for compound statements.
 */
function runStatement(node: Node, ctx: Ctx, scope: Scope, stdin: Stdin): Cmd | null {
  if (node.type === "command") return simpleCommand(node, [], [], ctx, scope, stdin);
  if (node.type === "negated_command" && node.namedChildren.length === 1) return runStatement(node.namedChildren[0]!, ctx, scope, stdin);
  if (node.type !== "redirected_statement") {
    walk(node, ctx, scope);
    return null;
  }
  const body = node.childForFieldName("body");
  const redirects: Redirect[] = [];
  const extraArgs: Arg[] = [];
  let heredoc: string | null = null;
  let herestring: Arg | null = null;
  let inputFile: Arg | null = null;
  const continuations: { op: string; node: Node }[] = [];
  for (const r of node.childrenForFieldName("redirect")) {
    if (!r) continue;
    const collected = collectRedirect(r, ctx, scope, extraArgs, continuations);
    if (!collected) continue;
    redirects.push(collected.redirect);
    if (collected.heredoc !== null) heredoc = collected.heredoc;
    if (collected.redirect.op === "<<<" && collected.redirect.target) herestring = collected.redirect.target;
    if (collected.redirect.op === "<" && collected.redirect.target) inputFile = collected.redirect.target;
  }
  const effectiveStdin: Stdin =
    heredoc !== null ? { kind: "heredoc", body: heredoc }
    : herestring ? { kind: "herestring", arg: herestring }
    : inputFile ? { kind: "file", arg: inputFile }
    : stdin;
  let cmd: Cmd | null = null;
  if (body?.type === "command") {
    cmd = simpleCommand(body, redirects, extraArgs, ctx, scope, effectiveStdin);
  } else {
    if (body?.type === "list" && effectiveStdin.kind !== "none") {
      // `a && b <<EOF`: the grammar hangs the here-document on the list; the shell gives it to the last command.
      const kids = body.namedChildren;
      for (const k of kids.slice(0, -1)) walk(k, ctx, scope);
      const last = kids[kids.length - 1];
      if (last) runStatement(last, ctx, scope, effectiveStdin);
    } else if (body) walk(body, ctx, scope);
    const synthetic: Cmd = {
      name: "", argv0: literalArg(""), args: extraArgs, assigns: [], redirects, stdin: effectiveStdin, via: scope.via, node,
      cwd: scope.cwd, everyPathUnder: false, unknownOperands: false, synthetic: true,
    };
    applyRules(synthetic, ctx, scope);
  }
  for (const c of continuations) {
    if (c.op === "|" || c.op === "|&") runPipeline(c.node.type === "pipeline" ? flattenPipeline(c.node) : [c.node], ctx, scope, cmd);
    else walk(c.node, ctx, scope);
  }
  return cmd;
}

function collectRedirect(
  r: Node, ctx: Ctx, scope: Scope, extraArgs: Arg[], continuations: { op: string; node: Node }[],
): { redirect: Redirect; heredoc: string | null } | null {
  if (r.type === "file_redirect") {
    const dests = r.childrenForFieldName("destination").filter((d): d is Node => d !== null);
    const op = r.children.find((c) => c && !c.isNamed)?.type ?? ">";
    const fd = r.childForFieldName("descriptor")?.text ?? "";
    const target = dests[0] ? argOf(dests[0], ctx, scope) : null;
    // tree-sitter-bash attaches words after a redirection to it; the shell treats them as arguments.
    for (const extra of dests.slice(1)) extraArgs.push(argOf(extra, ctx, scope));
    return { redirect: { op: fd + op, target, node: r }, heredoc: null };
  }
  if (r.type === "herestring_redirect") {
    const w = r.namedChildren.find((c) => c !== null) ?? null;
    return { redirect: { op: "<<<", target: w ? argOf(w, ctx, scope) : null, node: r }, heredoc: null };
  }
  if (r.type === "heredoc_redirect") {
    let body = "";
    for (const c of r.children) {
      if (!c) continue;
      if (c.type === "heredoc_body") {
        body = bashHeredocBody(r, c);
        for (const sub of c.descendantsOfType(["command_substitution", "process_substitution"])) if (sub) walk(sub, ctx, scope);
      } else if (c.isNamed && c.type !== "heredoc_start" && c.type !== "heredoc_end") {
        const lead = c.type === "pipeline" ? c.child(0) : null;
        const op = lead && !lead.isNamed ? lead.type : c.previousSibling && !c.previousSibling.isNamed ? c.previousSibling.type : ";";
        continuations.push({ op, node: c });
      }
    }
    return { redirect: { op: "<<", target: null, node: r }, heredoc: body };
  }
  walk(r, ctx, scope);
  return null;
}

/** Text between a backquote at `start` and the next unescaped backquote (or the end of the source). */
function backquoteBody(source: string, start: number): string {
  let i = start + 1;
  while (i < source.length && source[i] !== "`") i += source[i] === "\\" ? 2 : 1;
  return source.slice(start + 1, Math.min(i, source.length));
}

/**
 * The here-document body as bash reads it: lines up to one that is exactly the delimiter (after leading
 * tabs with `<<-`). tree-sitter-bash 0.25 also ends a body at a line that merely starts with the delimiter
 * (`EOF'`), which would hide the rest of the body; reading the source again closes that gap.
 */
function bashHeredocBody(redirect: Node, body: Node): string {
  const start = redirect.children.find((c) => c.type === "heredoc_start");
  const delim = (start?.text ?? "").replace(/^(['"])(.*)\1$/s, "$2").replace(/\\(.)/g, "$1");
  const strip = redirect.text.startsWith("<<-");
  const lines = body.source.slice(body.startIndex).split("\n");
  const out: string[] = [];
  for (const line of lines) {
    if ((strip ? line.replace(/^\t+/, "") : line) === delim) break;
    out.push(line);
  }
  return out.join("\n") + (out.length ? "\n" : "");
}

function assignment(node: Node, ctx: Ctx, scope: Scope): { name: string; value: Arg } {
  const nameNode = node.childForFieldName("name");
  const valueNode = node.childForFieldName("value");
  const name = nameNode?.type === "variable_name" ? nameNode.text : (nameNode?.text ?? "");
  const value = valueNode ? argOf(valueNode, ctx, scope) : literalArg("");
  if (!value.dynamic) scope.vars.set(name, value.text);
  else scope.vars.delete(name);
  const synthetic: Cmd = {
    name: "", argv0: literalArg(""), args: [], assigns: [{ name, value }], redirects: [], stdin: { kind: "none" }, via: scope.via,
    node, cwd: scope.cwd, everyPathUnder: false, unknownOperands: false, synthetic: true,
  };
  applyRules(synthetic, ctx, scope);
  return { name, value };
}

function declaration(node: Node, ctx: Ctx, scope: Scope): void {
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === "variable_assignment") assignment(c, ctx, scope);
    else argOf(c, ctx, scope);
  }
}

function functionDefinition(node: Node, ctx: Ctx, scope: Scope): void {
  const name = node.childForFieldName("name")?.text ?? "";
  const body = node.childForFieldName("body");
  scope.functions.add(name);
  if (!body) return;
  let selfCalls = 0;
  let selfPiped = false;
  for (const c of body.descendantsOfType("command")) {
    if (!c) continue;
    const n = c.childForFieldName("name");
    if (!n || resolveWord(n).text !== name) continue;
    selfCalls++;
    if (c.parent?.type === "pipeline") selfPiped = true;
  }
  if (selfPiped || (selfCalls >= 2 && /&/.test(body.text))) emit(ctx, scope, "fork_bomb", node);
  // The body may run: judge it as if it ran here.
  walk(body, ctx, childScope(scope));
}

// ---------------------------------------------------------------------------------------------- commands

function simpleCommand(node: Node, redirects: Redirect[], extraArgs: Arg[], ctx: Ctx, scope: Scope, stdin: Stdin): Cmd | null {
  const assigns: { name: string; value: Arg }[] = [];
  for (const c of node.namedChildren) {
    if (c?.type === "variable_assignment") {
      const n = c.childForFieldName("name")?.text ?? "";
      const v = c.childForFieldName("value");
      assigns.push({ name: n, value: v ? argOf(v, ctx, scope) : literalArg("") });
    }
  }
  const own: Redirect[] = [];
  const heredocCont: { op: string; node: Node }[] = [];
  let ownStdin = stdin;
  for (const r of node.childrenForFieldName("redirect")) {
    if (!r) continue;
    const got = collectRedirect(r, ctx, scope, extraArgs, heredocCont);
    if (!got) continue;
    own.push(got.redirect);
    if (got.redirect.op === "<<<" && got.redirect.target) ownStdin = { kind: "herestring", arg: got.redirect.target };
    if (got.heredoc !== null) ownStdin = { kind: "heredoc", body: got.heredoc };
  }
  const nameNode = node.childForFieldName("name");
  if (!nameNode) return null;
  const argv0 = argOf(nameNode, ctx, scope);
  const args = node.childrenForFieldName("argument").filter((a): a is Node => a !== null).map((a) => argOf(a, ctx, scope));
  const cmd: Cmd = {
    name: commandName(argv0.text), argv0, args: [...args, ...extraArgs], assigns, redirects: [...redirects, ...own], stdin: ownStdin,
    via: scope.via, node, cwd: scope.cwd, everyPathUnder: false, unknownOperands: false, synthetic: false,
  };
  inspect(cmd, ctx, scope);
  for (const c of heredocCont) walk(c.node, ctx, scope);
  return cmd;
}

function record(cmd: Cmd, ctx: Ctx, scope: Scope, dynamic: boolean): void {
  if (ctx.commands.length >= 1000) return;
  ctx.commands.push({
    name: cmd.name,
    argv: [cmd.argv0.display, ...cmd.args.map((a) => a.display)],
    via: cmd.via,
    depth: scope.depth,
    dynamic,
    span: spanOf(ctx, scope, cmd.node),
  });
}

function applyRules(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const run = (rule: Rule): void => {
    if (rule.test?.(cmd)) emit(ctx, scope, rule.id, cmd.node);
  };
  for (const rule of ctx.rules.everyCommand) run(rule);
  if (cmd.synthetic) return;
  for (const rule of ctx.rules.byName.get(cmd.name) ?? []) run(rule);
  for (const p of ctx.rules.prefixes) if (cmd.name.startsWith(p.prefix)) run(p.rule);
}

function inspect(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  if (ctx.complex) return;
  if (++ctx.cmds > LIMITS.maxCommands) { tooComplex(ctx, scope, cmd.node, `more than ${LIMITS.maxCommands} commands`); return; }
  ctx.words += cmd.args.length + 1;
  if (ctx.words > LIMITS.maxWords) { tooComplex(ctx, scope, cmd.node, `more than ${LIMITS.maxWords} words in commands`); return; }
  const a0 = cmd.argv0;
  if (a0.nonAscii) {
    record(cmd, ctx, scope, true);
    emit(ctx, scope, "non_ascii_command_word", cmd.node);
    return;
  }
  if (a0.dynamic) {
    emit(ctx, scope, "dynamic_command_name", cmd.node);
    if (a0.text === "" || /\s/.test(a0.text)) {
      record(cmd, ctx, scope, true);
      applyRules({ ...cmd, synthetic: true }, ctx, scope);
      // `$SHELL -c '…'`: whatever the program is, a -c string is most likely code; judge it as such.
      const c = cmd.args.findIndex((a) => /^-[a-zA-Z]*c$/.test(a.text));
      if (c >= 0 && cmd.args[c + 1]) codeFromArgs([cmd.args[c + 1]!], ctx, scope, cmd);
      if (/\s/.test(a0.text)) analyseCode([a0.text, ...cmd.args.map((a) => a.text)].join(" "), ctx, scope, cmd);
      return;
    }
  }
  if (a0.glob) {
    emit(ctx, scope, "glob_command_name", cmd.node);
    record(cmd, ctx, scope, true);
    const re = globToRegExp(cmd.name);
    for (const cand of knownNames().filter((n) => re.test(n)).slice(0, 8)) inspect({ ...cmd, name: cand, argv0: literalArg(cand), optionCache: undefined }, ctx, scope);
    return;
  }
  record(cmd, ctx, scope, a0.dynamic);
  if (scope.functions.has(cmd.name) && !a0.text.includes("/")) return;
  const scriptWritten = scope.written.get(normalisePath(a0.text, scope.cwd));
  if (a0.text.includes("/") && scriptWritten !== undefined) {
    analyseCode(scriptWritten, ctx, scope, cmd);
    return;
  }
  if (RESERVED.has(cmd.name) && !a0.dynamic) { reservedWord(cmd, ctx, scope); return; }
  trackState(cmd, scope);
  applyRules(cmd, ctx, scope);
  if (Object.hasOwn(WRAPPERS, cmd.name)) { unwrap(cmd, ctx, scope); return; }
  if (SHELLS.has(cmd.name)) { shell(cmd, ctx, scope); return; }
  if (INTERPRETERS.has(cmd.name)) { interpreter(cmd, ctx, scope); return; }
  switch (cmd.name) {
    case "eval": { codeFromArgs(cmd.args, ctx, scope, cmd); return; }
    case "source": case ".": { sourceFile(cmd.args[0], ctx, scope, cmd); return; }
    case "alias":
      for (const a of cmd.args) {
        const eq = a.text.indexOf("=");
        if (eq > 0) codeFromArgs([{ ...a, text: a.text.slice(eq + 1) }], ctx, scope, cmd);
      }
      return;
    case "su": case "sg": { suLike(cmd, ctx, scope); return; }
    case "find": { findExec(cmd, ctx, scope); return; }
    case "fd": case "fdfind": { fdExec(cmd, ctx, scope); return; }
    case "sed": { sedExec(cmd, ctx, scope); return; }
    case "awk": case "gawk": case "mawk": case "nawk": case "busybox-awk": { awkProgram(cmd, ctx, scope); return; }
    case "at": case "batch": { atJob(cmd, ctx, scope); return; }
    case "ssh": { sshRemote(cmd, ctx, scope); return; }
  }
  const level = baseLevel(cmd.name);
  if (level === "medium") emit(ctx, scope, "mutating_command", cmd.node, cmd.name);
  else if (level !== "low") emit(ctx, scope, "unknown_command", cmd.node, cmd.name);
}

/** Shell reserved words; seen as a command name only when the grammar could not place them. */
const RESERVED = new Set(["if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case", "esac", "{", "}", "!", "coproc", "select", "function"]);

/**
 * tree-sitter-bash reads some valid lines (`! if …; then …; fi`, `! { …; }`) as commands named `if`,
 * `then`, `{`… Bash would run the words after the reserved word, so judge them as a command.
 */
function reservedWord(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  let rest = cmd.args;
  if (cmd.name === "case" || cmd.name === "for" || cmd.name === "select") {
    const close = rest.findIndex((a) => a.text.endsWith(")") || a.text === "do");
    const inAt = rest.findIndex((a) => a.text === "in");
    rest = close >= 0 ? rest.slice(close + 1) : inAt >= 0 ? rest.slice(inAt + 2) : [];
  } else if (cmd.name === "function") {
    rest = [];
  }
  while (rest[0] && (RESERVED.has(rest[0].text) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0].text))) rest = rest.slice(1);
  if (rest.length > 0) inspect(innerCmd(cmd, rest, { via: cmd.via }), ctx, scope);
}

function globToRegExp(glob: string): RegExp {
  let src = "";
  for (const ch of glob) {
    if (ch === "*") src += ".*";
    else if (ch === "?") src += ".";
    else if (ch === "[" || ch === "]" || ch === "!" || ch === "^" || ch === "-") src += ch === "!" ? "^" : ch;
    else src += ch.replace(/[.+(){}|$\\/]/g, "\\$&");
  }
  try {
    return new RegExp(`^${src}$`);
  } catch {
    return /^$/;
  }
}

/** cd changes where relative paths point; echo/printf into a file remembers the text (write-then-run). */
function trackState(cmd: Cmd, scope: Scope): void {
  if (cmd.name === "cd" || cmd.name === "pushd") {
    const target = cmd.args.find((a) => !a.text.startsWith("-"));
    if (!target) scope.cwd = "~";
    else scope.cwd = target.dynamic ? undefined : normalisePath(target.text, scope.cwd ?? undefined);
    if (scope.cwd && !scope.cwd.startsWith("/") && !scope.cwd.startsWith("~")) scope.cwd = undefined;
    return;
  }
  if ((cmd.name === "echo" || cmd.name === "printf") && cmd.args.every((a) => !a.dynamic)) {
    const text = cmd.args.filter((a, i) => !(cmd.name === "echo" && i === 0 && /^-[neE]+$/.test(a.text))).map((a) => a.text).join(" ");
    for (const t of fileWrites(cmd)) if (!t.dynamic) scope.written.set(normalisePath(t.text, scope.cwd), text.replace(/\\n/g, "\n"));
  }
}

// ---------------------------------------------------------------------------------------------- code

function nested(scope: Scope, ctx: Ctx, at: Cmd, via: string): Scope {
  return { ...childScope(scope), depth: scope.depth + 1, origin: spanOf(ctx, scope, at.node), via: [...at.via, via] };
}

/** Static text is parsed again as shell code, one level deeper. */
function analyseCode(text: string, ctx: Ctx, scope: Scope, at: Cmd): void {
  analyseText(text, ctx, nested(scope, ctx, at, at.name));
}

/** Commands whose output feeds code, found inside substitutions: downloads and decoders are critical. */
function sourceKinds(nodes: readonly Node[]): { download: boolean; decode: boolean } {
  let download = false;
  let decode = false;
  for (const n of nodes) {
    for (const c of n.descendantsOfType("command_name")) {
      if (!c) continue;
      const name = commandName(resolveWord(c).text);
      if (DOWNLOADERS.has(name)) download = true;
      if (TRANSFORMERS.has(name)) decode = true;
    }
  }
  return { download, decode };
}

/** Words that become code (`sh -c`, `eval`, `alias`): parse the static text; flag what cannot be read. */
function codeFromArgs(args: readonly Arg[], ctx: Ctx, scope: Scope, at: Cmd): void {
  if (args.length === 0) return;
  const text = args.map((a) => a.text).join(" ");
  if (args.some((a) => a.dynamic)) {
    const kinds = sourceKinds(args.flatMap((a) => a.subs));
    if (kinds.download) emit(ctx, scope, "download_to_interpreter", at.node);
    else if (kinds.decode) emit(ctx, scope, "decoded_to_interpreter", at.node);
    else emit(ctx, scope, "opaque_code", at.node, "code built at run time");
  }
  if (text.trim() !== "") analyseCode(text, ctx, scope, at);
}

/** The program text reaching a shell or interpreter on standard input. */
function stdinCode(cmd: Cmd, ctx: Ctx, scope: Scope, readable: boolean): void {
  const s = cmd.stdin;
  if (s.kind === "heredoc") {
    if (readable) analyseCode(s.body, ctx, scope, cmd);
    else emit(ctx, scope, "opaque_code", cmd.node, "here-document fed to an interpreter");
    return;
  }
  if (s.kind === "herestring") {
    if (readable) codeFromArgs([s.arg], ctx, scope, cmd);
    else emit(ctx, scope, "opaque_code", cmd.node, "here-string fed to an interpreter");
    return;
  }
  if (s.kind === "file") {
    if (s.arg.subs.length > 0) { sourceFile(s.arg, ctx, scope, cmd); return; }
    const written = scope.written.get(normalisePath(s.arg.text, scope.cwd));
    if (readable && written !== undefined) analyseCode(written, ctx, scope, cmd);
    else emit(ctx, scope, "opaque_code", cmd.node, "script read from a file");
    return;
  }
  if (s.kind === "none") {
    emit(ctx, scope, "interactive_shell", cmd.node);
    return;
  }
  // A pipe: walk upstream to see what produces the code.
  const upstream: Cmd[] = [];
  const compound: Node[] = [];
  let c: Cmd | null = s.from;
  if (!c && s.fromNode) compound.push(s.fromNode);
  for (; c && upstream.length < 64; c = c.stdin.kind === "pipe" ? c.stdin.from : null) {
    upstream.push(c);
    if (c.stdin.kind === "pipe" && !c.stdin.from && c.stdin.fromNode) compound.push(c.stdin.fromNode);
  }
  const names = upstream.map((u) => u.name);
  const subs = [...upstream.flatMap((u) => [...u.args, u.argv0].flatMap((a) => a.subs)), ...compound];
  const kinds = sourceKinds(subs);
  if (names.some((n) => DOWNLOADERS.has(n)) || kinds.download) { emit(ctx, scope, "download_to_interpreter", cmd.node); return; }
  if (names.some((n) => TRANSFORMERS.has(n) && n !== "printf") || kinds.decode) { emit(ctx, scope, "decoded_to_interpreter", cmd.node); return; }
  const src = upstream[0];
  if (readable && src && upstream.length === 1) {
    if (src.name === "echo" || src.name === "printf") {
      const words = src.args.filter((a, i) => !(src.name === "echo" && i === 0 && /^-[neE]+$/.test(a.text)));
      codeFromArgs(words.map((a) => ({ ...a, text: a.text.replace(/\\n/g, "\n") })), ctx, scope, cmd); return;
    }
    if (src.name === "cat" && src.args.length === 0) { stdinCode({ ...cmd, stdin: src.stdin }, ctx, scope, readable); return; }
  }
  emit(ctx, scope, "opaque_code", cmd.node, "code piped from another command");
}

const SHELL_OPTS: OptionSpec = { posix: true, shortArgs: "oO", longArgs: ["rcfile", "init-file"] };

function shell(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = optionsOf(cmd, SHELL_OPTS);
  if (hasFlag(p, "-c")) {
    const code = p.operands[0];
    if (code) codeFromArgs([code], ctx, scope, cmd);
    else emit(ctx, scope, "opaque_code", cmd.node, "-c without a command string");
    return;
  }
  const script = p.operands[0];
  if (script && !hasFlag(p, "-s")) { sourceFile(script, ctx, scope, cmd); return; }
  stdinCode(cmd, ctx, scope, true);
}

function interpreter(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const subs = cmd.args.flatMap((a) => a.subs);
  const kinds = sourceKinds(subs);
  if (kinds.download) { emit(ctx, scope, "download_to_interpreter", cmd.node); return; }
  const p = parseOptions(cmd.args, { posix: true, shortArgs: "cemWXI" });
  const keys = [...p.flags.keys()];
  if (p.operands.length === 0 && keys.length > 0 && keys.every((k) => ["-V", "--version", "-v", "-h", "--help"].includes(k))) return;
  const code = keys.some((k) => ["-c", "-e", "-m", "--eval", "--execute", "-E"].includes(k));
  if (code || p.operands.length > 0) { emit(ctx, scope, "interpreter_code", cmd.node, cmd.name); return; }
  stdinCode(cmd, ctx, scope, false);
  emit(ctx, scope, "interpreter_code", cmd.node, cmd.name);
}

/** at/batch run the job they read on standard input (or from -f FILE) later, in a shell. */
function atJob(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = parseOptions(cmd.args, { shortArgs: "fqtM" });
  if (p.flags.has("-l") || p.flags.has("-r") || p.flags.has("-d") || p.flags.has("-c")) return;
  const file = p.flags.get("-f")?.[0];
  emit(ctx, scope, "unknown_command", cmd.node, "schedules a job");
  if (file !== undefined) sourceFile(literalArg(file), ctx, scope, cmd);
  else stdinCode(cmd, ctx, scope, true);
}

const SSH_OPTS: OptionSpec = { posix: true, shortArgs: "BbcDEeFIiJLlmOoPpQRSWw" };

/** ssh HOST COMMAND…: the command runs in a shell on the remote host; judge it like sh -c. */
function sshRemote(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = parseOptions(cmd.args, SSH_OPTS);
  const remote = p.operands.slice(1);
  emit(ctx, scope, "unknown_command", cmd.node, "ssh runs commands on another host");
  if (remote.length) codeFromArgs(remote, ctx, scope, cmd);
}

function sourceFile(file: Arg | undefined, ctx: Ctx, scope: Scope, at: Cmd): void {
  if (!file) { emit(ctx, scope, "opaque_code", at.node, "nothing to source"); return; }
  const sub = file.subs.length === 1 && file.subs[0]!.type === "process_substitution" ? file.subs[0]! : null;
  const out = sub ? staticOutput(sub, lookupIn(scope)) : null;
  if (out !== null) { analyseCode(out, ctx, scope, at); return; }
  if (file.text === "/dev/stdin" || file.text === "-" || file.text === "/proc/self/fd/0") { stdinCode(at, ctx, scope, true); return; }
  if (file.subs.length > 0) {
    const kinds = sourceKinds(file.subs);
    if (kinds.download) { emit(ctx, scope, "download_to_interpreter", at.node); return; }
    if (kinds.decode) { emit(ctx, scope, "decoded_to_interpreter", at.node); return; }
    emit(ctx, scope, "opaque_code", at.node, "code produced by a substitution"); return;
  }
  const written = scope.written.get(normalisePath(file.text, scope.cwd));
  if (written !== undefined && !file.dynamic) { analyseCode(written, ctx, scope, at); return; }
  emit(ctx, scope, "runs_script", at.node, file.display);
}

function suLike(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = parseOptions(cmd.args, { shortArgs: "cgGsw", longArgs: ["command", "group", "supp-group", "shell", "whitelist-environment", "session-command"] });
  const code = [...(p.flags.get("-c") ?? []), ...(p.flags.get("--command") ?? []), ...(p.flags.get("--session-command") ?? [])];
  if (code.length) { codeFromArgs(code.map(literalArg), ctx, scope, cmd); return; }
  if (cmd.name === "sg" && p.operands[1]) { codeFromArgs(p.operands.slice(1), ctx, scope, cmd); return; }
  emit(ctx, scope, "interactive_shell", cmd.node);
}

function unwrap(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const spec = WRAPPERS[cmd.name]!;
  const p = parseOptions(cmd.args, spec.options);
  if (spec.noExec?.some((f) => p.flags.has(f))) return;
  const env = [...(p.flags.get("-S") ?? []), ...(p.flags.get("--split-string") ?? [])];
  if (cmd.name === "env" && env.length) { codeFromArgs(env.map(literalArg), ctx, scope, cmd); return; }
  const cmdFlag = [...(p.flags.get("-c") ?? []), ...(p.flags.get("--command") ?? [])];
  if ((cmd.name === "flock" || cmd.name === "runuser") && cmdFlag.length) { codeFromArgs(cmdFlag.map(literalArg), ctx, scope, cmd); return; }
  let rest = p.stop >= 0 ? cmd.args.slice(p.stop) : [];
  const assigns: { name: string; value: Arg }[] = [];
  rest = rest.slice(spec.skip ?? 0);
  if (cmd.name === "watch") { codeFromArgs(rest, ctx, scope, cmd); return; }
  {
    // env documents NAME=VALUE operands; sudo and others accept them too, and no command is named X=y.
    while (rest[0] && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0].text)) {
      const t = rest[0].text;
      const eq = t.indexOf("=");
      assigns.push({ name: t.slice(0, eq), value: { ...rest[0], text: t.slice(eq + 1) } });
      rest = rest.slice(1);
    }
  }
  if (cmd.name === "xargs") { xargs(cmd, rest, ctx, scope); return; }
  if (rest.length === 0) {
    if (spec.shellFlags?.some((f) => p.flags.has(f)) || spec.bare === "shell") emit(ctx, scope, "interactive_shell", cmd.node, cmd.name);
    if (assigns.length) applyRules({ ...cmd, assigns, synthetic: true }, ctx, scope);
    return;
  }
  const inner = innerCmd(cmd, rest, { assigns });
  if (assigns.length) applyRules({ ...inner, synthetic: true }, ctx, scope);
  inspect(inner, ctx, scope);
}

/** Tools whose operands can be a program: fed by xargs from unseen input they run unseen code. */
const XARGS_PROGRAM_TAKERS = new Set(["sed", "awk", "gawk", "mawk", "nawk", "perl", "rsync", "find", "xargs", "parallel", "ssh", "git"]);

function xargs(cmd: Cmd, rest: Arg[], ctx: Ctx, scope: Scope): void {
  const argv = rest.length ? rest : [literalArg("echo")];
  const src = cmd.stdin.kind === "pipe" ? cmd.stdin.from : null;
  const p = parseOptions(cmd.args, WRAPPERS.xargs!.options);
  // -0 / -d: items are split on NUL or the delimiter, not on blanks, so "rm -rf /" stays one item.
  const wholeItems = p.flags.has("-0") || p.flags.has("--null") || p.flags.has("-d") || p.flags.has("--delimiter");
  let extra: Arg[] = [];
  let unknown = true;
  if (src && (src.name === "echo" || src.name === "printf") && src.args.every((a) => !a.dynamic)) {
    const words = src.args.map((a) => a.text).filter((t) => !/^-[neE]+$/.test(t));
    extra = (wholeItems ? [words.join(" ")] : words.flatMap((t) => t.split(/\s+/))).filter(Boolean).map(literalArg);
    unknown = false;
  }
  // Items appended to a shell or interpreter are code assembled at run time: never resolved on our say-so.
  const runner = argv[0] ? commandName(argv[0].text) : "";
  // Input the engine cannot see, handed to a wrapper (env, nice, timeout…) or a program-taking tool (sed, awk,
  // rsync -e…), becomes the command or program itself.
  if (unknown && (Object.hasOwn(WRAPPERS, runner) || XARGS_PROGRAM_TAKERS.has(runner))) {
    emit(ctx, scope, "dynamic_command_name", cmd.node, `xargs builds the ${runner} command from input the engine cannot see`);
  }
  if ((SHELLS.has(runner) || INTERPRETERS.has(runner)) && (unknown || extra.length > 0)) {
    extra = (extra.length ? extra : [literalArg("")]).map((a) => ({ ...a, dynamic: true }));
    unknown = true;
  }
  const replace = [...(p.flags.get("-I") ?? []), ...(p.flags.get("--replace") ?? []), ...(p.flags.has("-i") ? ["{}"] : [])][0];
  if (replace) {
    // -I STR: each input item replaces STR inside the arguments (unknown items: the empty worst case).
    const items = unknown ? [""] : extra.map((a) => a.text).slice(0, 4);
    for (const item of items) {
      const replaced = argv.map((a) => (a.text.includes(replace) ? { ...a, text: a.text.split(replace).join(item), dynamic: a.dynamic || unknown } : a));
      inspect(innerCmd(cmd, replaced, { unknownOperands: unknown, stdin: { kind: "none" } }), ctx, scope);
    }
    return;
  }
  inspect(innerCmd(cmd, [...argv, ...extra], { unknownOperands: unknown, stdin: { kind: "none" } }), ctx, scope);
}

/** find's start paths, and each -exec/-execdir/-ok/-okdir command with `{}` standing for every file below. */
function findExec(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const args = cmd.args;
  const starts: Arg[] = [];
  let i = 0;
  while (i < args.length && !/^[-(!]/.test(args[i]!.text)) starts.push(args[i++]!);
  if (starts.length === 0) starts.push(literalArg("."));
  for (; i < args.length; i++) {
    const t = args[i]!.text;
    if (t !== "-exec" && t !== "-execdir" && t !== "-ok" && t !== "-okdir") continue;
    const argv: Arg[] = [];
    for (i++; i < args.length && args[i]!.text !== ";" && args[i]!.text !== "+"; i++) argv.push(args[i]!);
    if (argv.length === 0) continue;
    for (const start of starts.slice(0, 4)) {
      const replaced = argv.map((a) => (a.text.includes("{}") ? { ...a, text: a.text.replace(/\{\}/g, start.text), dynamic: a.dynamic || start.dynamic } : a));
      if (!argv.some((a) => a.text.includes("{}"))) replaced.push(start);
      inspect(innerCmd(cmd, replaced, { everyPathUnder: true, stdin: { kind: "none" } }), ctx, scope);
    }
  }
}

const AWK_OPTS: OptionSpec = { shortArgs: "fvF", longArgs: ["file", "assign", "field-separator", "include", "load", "source"] };

/**
 * awk programs can run commands (`system()`, `| getline`, `print | "cmd"`): a program built at run time is opaque
 * code; a literal one that pipes or calls system() is code in an interpreter the engine does not analyse.
 */
function awkProgram(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = optionsOf(cmd, AWK_OPTS);
  const programs = [...valueAfter(cmd, ["--source"]), ...(p.flags.has("-f") || p.flags.has("--file") ? [] : p.operands.slice(0, 1))];
  if (p.flags.has("-f") || p.flags.has("--file")) emit(ctx, scope, "interpreter_code", cmd.node, "an awk program file");
  for (const prog of programs) {
    if (prog.dynamic) emit(ctx, scope, "opaque_code", cmd.node, "an awk program built at run time");
    else if (/\bsystem\s*\(|\|\s*getline|\bprint[^;}]*\|/.test(prog.text)) emit(ctx, scope, "interpreter_code", cmd.node, "an awk program that runs commands");
  }
}

const FD_OPTS: OptionSpec = { shortArgs: "etdEcjSx", longArgs: ["extension", "type", "max-depth", "exclude", "color", "threads", "size", "changed-within", "changed-before", "owner", "base-directory", "path-separator", "search-path", "max-results", "exact-depth", "min-depth"] };

function fdExec(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const idx = cmd.args.findIndex((a) => ["-x", "--exec", "-X", "--exec-batch"].includes(a.text));
  if (idx < 0) return;
  const before = parseOptions(cmd.args.slice(0, idx), FD_OPTS).operands;
  const roots = before.length > 1 ? before.slice(1) : [literalArg(".")];
  const argv = cmd.args.slice(idx + 1);
  const end = argv.findIndex((a) => a.text === ";");
  const inner = end >= 0 ? argv.slice(0, end) : argv;
  if (inner.length === 0) return;
  for (const root of roots.slice(0, 4)) inspect(innerCmd(cmd, [...inner, root], { everyPathUnder: true, stdin: { kind: "none" } }), ctx, scope);
}

const SED_OPTS: OptionSpec = { shortArgs: "efl", longArgs: ["expression", "file", "line-length"] };

/** The argument after a flag such as -e, when the flag and its value are separate words. */
const valueAfter = (cmd: Cmd, flags: readonly string[]): Arg[] => cmd.args.filter((_, i) => i > 0 && flags.includes(cmd.args[i - 1]!.text));

function sedExec(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = optionsOf(cmd, SED_OPTS);
  // A sed script built at run time can hold `e` (execute) or `w` commands the engine cannot see.
  const byFlag = valueAfter(cmd, ["-e", "--expression"]);
  if (byFlag.some((a) => a.dynamic) || (byFlag.length === 0 && !p.flags.has("-f") && p.operands[0]?.dynamic)) {
    emit(ctx, scope, "opaque_code", cmd.node, "a sed script built at run time");
  }
  const scripts = [...(p.flags.get("-e") ?? []), ...(p.flags.get("--expression") ?? [])];
  if (scripts.length === 0 && !p.flags.has("-f") && p.operands[0]) scripts.push(p.operands[0].text);
  for (const s of scripts) for (const text of scanSed(s).execs) if (text) analyseCode(text, ctx, scope, cmd);
}
