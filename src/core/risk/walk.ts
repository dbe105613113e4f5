import { commandName, makeCmd, type Cmd, type Redirect, type Stdin } from "./command.ts";
import { applyRules, inspect } from "./inspect.ts";
import { childScope, emit, lookupIn, spanOf, tooComplex, type Ctx, type Scope } from "./context.ts";
import { LIMITS } from "./limits.ts";
import { analyseText } from "./parse.ts";
import { noteCompoundFetch } from "./fetched.ts";
import type { SyntaxNode as Node } from "./syntax.ts";
import { literalArg, resolveWord, type Arg } from "./words.ts";

/** Walking the syntax tree: lists, pipelines, redirections, assignments, functions and simple commands. */

const LEAVES = new Set(["word", "raw_string", "string_content", "number", "comment", "variable_name", "heredoc_start", "heredoc_end", "file_descriptor", "test_operator", "regex", "special_variable_name", "ansi_c_string"]);

/** Walks one syntax node within the nesting limit (deeper → `too_complex`). */
export function walk(node: Node, ctx: Ctx, scope: Scope): void {
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
      // One scope for the whole body: a `cd` or an assignment in one statement holds for the next (`$(cd /etc; cat
      // shadow)`), not outside it.
      { const inner = childScope(scope); for (const c of node.namedChildren) if (c) walk(c, ctx, inner); }
      return;
    case "subshell":
    case "process_substitution": {
      const inner = childScope(scope);
      for (const c of node.namedChildren) if (c) walk(c, ctx, inner);
      return;
    }
    case "arithmetic_expansion":
    case "compound_statement":
    case "test_command":
      arithmeticVars(node, ctx, scope);
      // `[ -v 'a[$(cmd)]' ]`: the name's subscript is evaluated.
      for (const u of node.descendantsOfType("unary_expression")) {
        const operand = u.namedChildren.find((c) => c.type !== "test_operator");
        if (u.childForFieldName("operator")?.text === "-v" && operand) subscriptCode(resolveWord(operand, lookupIn(scope)).text, u, ctx, scope);
      }
      for (const c of node.namedChildren) if (c) walk(c, ctx, scope);
      return;
    case "unset_command":
      for (const c of node.namedChildren) if (c) subscriptCode(argOf(c, ctx, scope).text, c, ctx, scope);
      return;
    case "for_statement":
    case "c_style_for_statement":
    case "while_statement": {
      // A loop whose body backgrounds a command starts a new process on every pass.
      const body = node.childForFieldName("body");
      if (body && body.descendantsOfType("&").length > 0) emit(ctx, scope, "background_loop", node);
      if (body && endlessLoop(node) && !pausesOrStops(body) && !scope.via.includes("timeout")) emit(ctx, scope, "busy_loop", node);
      for (const c of node.namedChildren) if (c) walk(c, ctx, scope);
      return;
    }
    default:
      if (LEAVES.has(node.type)) return;
      for (const c of node.namedChildren) if (c) walk(c, ctx, scope);
  }
}

/**
 * Loops whose condition cannot change: `for ((…; ; …))`, and `while`/`until` whose condition is `true`, `:`, `false`
 * or a test (`[ … ]`, `[[ … ]]`, `(( … ))`, `test …`) with no variable, substitution or command in it (`while [ 1 -eq
 * 1 ]`, `until [ a = b ]`). Such a test is either always true or always false; when false the loop never runs, so
 * taking it as endless costs nothing. A file test (`-f x`, `-e`, `-d`…) can change and is not constant.
 */
const CONSTANT_CONDITION = /^(!\s*)*(true|false|:|\/(usr\/)?bin\/(true|false)|\[\s.*\s\]|\[\[\s.*\s\]\]|\(\(.*\)\)|test\s.*)$/s;

function endlessLoop(node: Node): boolean {
  if (node.type === "c_style_for_statement") return /^for\s*\(\([^;]*;\s*;/.test(node.text);
  const cond = node.childrenForFieldName("condition").map((c) => c.text).join(" ").replace(/[;\s]+$/, "").trim();
  if (/[$`<>|&;]/.test(cond) || /\s-[a-zA-Z]\s/.test(` ${cond.replace(/^[[(!\s]+|test\s/g, " ")} `.replace(/\s-(eq|ne|lt|le|gt|ge|a|o)\s/g, " ")) || !CONSTANT_CONDITION.test(cond)) return false;
  // `while false` / `until true` never run their body.
  const negations = (/^(!\s*)*/.exec(cond)![0].match(/!/g) ?? []).length;
  const bare = cond.replace(/^(!\s*)*/, "");
  const literal = /^(\/(usr\/)?bin\/)?(true|:)$/.test(bare) ? true : /^(\/(usr\/)?bin\/)?false$/.test(bare) ? false : null;
  if (literal === null) return true;
  const holds = negations % 2 === 0 ? literal : !literal;
  return node.child(0)?.type === "until" ? !holds : holds;
}

/** Commands that make a loop wait (sleep, read, wait…) or leave it (break, exit, return). */
const PAUSE_OR_STOP = new Set(["break", "exit", "return", "sleep", "usleep", "read", "wait", "inotifywait", "timeout", "logout", "select", "kill"]);

function pausesOrStops(body: Node): boolean {
  return body.descendantsOfType("command_name").some((n) => PAUSE_OR_STOP.has(resolveWord(n).text.replace(/^.*\//, "")));
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
  for (const [i, stage] of stages.entries()) {
    const stdin: Stdin = started ? { kind: "pipe", from: prev, fromNode: prevNode } : { kind: "none" };
    // A stage before the last writes into the pipe (its own subshell: a `cd` there does not outlive it).
    prev = runStatement(stage, ctx, i < stages.length - 1 ? { ...scope, pipedOut: true } : scope, stdin);
    prevNode = stage;
    started = true;
  }
}


function argOf(node: Node, ctx: Ctx, scope: Scope): Arg {
  const arg = resolveWord(node, lookupIn(scope));
  for (const sub of arg.subs) walk(sub, ctx, scope);
  if (node.text.includes("@P")) promptExpansions(node, ctx, scope);
  if (node.type === "arithmetic_expansion") arithmeticVars(node, ctx, scope);
  else if (node.text.includes("$((")) for (const a of node.descendantsOfType("arithmetic_expansion")) arithmeticVars(a, ctx, scope);
  return arg;
}

/** `${name@P}` / `${name[i]@P}` (bash 4.4+ parameter transformation: expand the value as a prompt string). */
const PROMPT_EXPANSION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?@P\}/g;

/**
 * Prompt expansion runs the `$(…)` and backquotes in a variable's value. A value set earlier in the line is
 * analysed as the code it holds; either way the word is `prompt_expansion` (high).
 */
function promptExpansions(node: Node, ctx: Ctx, scope: Scope): void {
  for (const m of node.text.matchAll(PROMPT_EXPANSION)) {
    emit(ctx, scope, "prompt_expansion", node);
    const value = scope.vars.get(m[1]!);
    if (value !== undefined && /[`$]/.test(value)) analyseText(`: ${value}`, ctx, { ...childScope(scope), depth: scope.depth + 1, origin: spanOf(ctx, scope, node) });
  }
}

/**
 * Bash evaluates a variable's value as an arithmetic expression inside `$((…))`, `((…))` and `[[ … -eq … ]]`, and
 * array subscripts in that value run their command substitutions (`x='a[$(cmd)]'; echo $((x))`). A value known
 * from earlier in the line that could hold such code is analysed as the expression it becomes.
 */
function arithmeticVars(node: Node, ctx: Ctx, scope: Scope): void {
  for (const v of node.descendantsOfType("variable_name")) {
    const value = scope.vars.get(v.text);
    if (value !== undefined && /[`$[]/.test(value)) {
      analyseText(`: $((${value}))`, ctx, { ...childScope(scope), depth: scope.depth + 1, origin: spanOf(ctx, scope, node) });
    }
  }
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
    const synthetic = makeCmd({
      name: "", argv0: literalArg(""), args: extraArgs, assigns: [], redirects, stdin: effectiveStdin, via: scope.via, node,
      cwd: scope.cwd, cwdGuess: scope.cwdGuess, synthetic: true, pipedOut: undefined,
    });
    applyRules(synthetic, ctx, scope);
    // `curl … | base64 -d > f`, `{ curl …; } > f`: the redirection holds what a downloader produced.
    if (body) noteCompoundFetch(synthetic, body, ctx, scope);
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

/** `NAME=value` (or `a[i]=value`): judges the value, remembers it when static, applies assignment rules. */
export function assignment(node: Node, ctx: Ctx, scope: Scope): { name: string; value: Arg } {
  const nameNode = node.childForFieldName("name");
  const valueNode = node.childForFieldName("value");
  const name = nameNode?.type === "variable_name" ? nameNode.text : (nameNode?.text ?? "");
  const value = valueNode ? argOf(valueNode, ctx, scope) : literalArg("");
  // `a[$(cmd)]=1`: the subscript is expanded (and its substitutions run) before the assignment.
  if (nameNode?.type === "subscript") walk(nameNode, ctx, scope);
  if (!value.dynamic) scope.vars.set(name, value.text);
  else scope.vars.delete(name);
  const synthetic = makeCmd({
    name: "", argv0: literalArg(""), args: [], assigns: [{ name, value }], redirects: [], stdin: { kind: "none" }, via: scope.via,
    node, cwd: scope.cwd, cwdGuess: scope.cwdGuess, synthetic: true, pipedOut: undefined,
  });
  applyRules(synthetic, ctx, scope);
  return { name, value };
}

function declaration(node: Node, ctx: Ctx, scope: Scope): void {
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === "variable_assignment") { assignment(c, ctx, scope); continue; }
    const arg = argOf(c, ctx, scope);
    subscriptCode(arg.text, c, ctx, scope);
    // `export $(cat .env)`, `declare "$kv"`: names and values only known at run time (PATH, LD_PRELOAD…).
    if (arg.dynamic && !arg.display.startsWith("-")) emit(ctx, scope, "exec_env_var", c, `${node.text.split(/\s/, 1)[0]!} ${arg.display}: names chosen at run time`);
  }
}

/**
 * A variable name with a subscript given as a word (`declare 'a[$(cmd)]=1'`, `printf -v 'a[$(cmd)]'`,
 * `read`, `unset`, `test -v`, `let`): bash evaluates the subscript as arithmetic, running its substitutions.
 * The subscript (or, for `let`, the whole expression) is analysed as the arithmetic expression it becomes.
 */
export function subscriptCode(text: string, at: Node, ctx: Ctx, scope: Scope, wholeExpression = false): void {
  const m = /^[A-Za-z_][A-Za-z0-9_]*\[(.*)\]/s.exec(text);
  const expr = wholeExpression ? text : m?.[1];
  if (expr === undefined || !/\$\(|`|\[/.test(expr)) return;
  analyseText(`: $((${expr}))`, ctx, { ...childScope(scope), depth: scope.depth + 1, origin: spanOf(ctx, scope, at) });
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
  // tree-sitter-bash accepts words bash rejects inside a simple command (`echo (rm -rf /)` holds a subshell; in
  // fish it is a command substitution): the line is not bash, so it is unparseable, and what is inside is judged.
  for (const c of node.namedChildren) {
    if (c.field === null && c.type !== "variable_assignment" && c.type !== "comment") {
      emit(ctx, scope, "unparseable", c, `${c.type} inside a simple command`);
      walk(c, ctx, childScope(scope));
    }
  }
  if (!nameNode) return null;
  const argv0 = argOf(nameNode, ctx, scope);
  const args = node.childrenForFieldName("argument").filter((a): a is Node => a !== null).map((a) => argOf(a, ctx, scope));
  const cmd = makeCmd({
    name: commandName(argv0.text), argv0, args: [...args, ...extraArgs], assigns, redirects: [...redirects, ...own], stdin: ownStdin,
    via: scope.via, node, cwd: scope.cwd, cwdGuess: scope.cwdGuess, synthetic: false, pipedOut: scope.pipedOut ?? false,
  });
  inspect(cmd, ctx, scope);
  for (const c of heredocCont) walk(c.node, ctx, scope);
  return cmd;
}