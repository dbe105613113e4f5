import type { SyntaxNode as Node } from "./syntax.ts";

/**
 * A shell word as the engine understands it before it runs.
 * - `text`: the value after quote removal and escape decoding, with every unknown expansion replaced by
 *   the empty string (the worst case a deletion rule must consider: `rm -rf "$DIR/"*` becomes `/*`),
 *   `${X:-w}` by `w`, and `$HOME` / `~` by `~`.
 * - `display`: the same with unknown parts shown as `${X}` / `$(…)`, for the normalised argv.
 * - `dynamic`: some part is only known at run time; `guarded`: a `${X:?}` stops the empty case.
 * - `glob`: contains an unquoted `*`, `?` or `[`; `brace`: an unquoted `{a,b}` expansion.
 * - `subs`: command and process substitutions inside the word (they run, and their output is data).
 */
export interface Arg {
  text: string;
  display: string;
  dynamic: boolean;
  guarded: boolean;
  glob: boolean;
  brace: boolean;
  nonAscii: boolean;
  vars: string[];
  subs: Node[];
  node: Node | null;
}

/** Looks up a variable's statically known value (from earlier `X=value` in the same line), if any. */
export type VarLookup = (name: string) => string | undefined;

const NO_VARS: VarLookup = () => undefined;

/** Builds an Arg for a plain string that did not come from the tree (wrapper-supplied operands). */
export function literalArg(text: string): Arg {
  return { text, display: text, dynamic: false, guarded: false, glob: false, brace: false, nonAscii: /[^\x20-\x7e\t\n]/.test(text), vars: [], subs: [], node: null };
}

/** Resolves a syntax node that forms one shell word into an Arg. Never throws. */
export function resolveWord(node: Node, lookup: VarLookup = NO_VARS): Arg {
  const arg: Arg = { text: "", display: "", dynamic: false, guarded: false, glob: false, brace: false, nonAscii: false, vars: [], subs: [], node };
  addNode(arg, node, lookup, false);
  arg.nonAscii = /[^\x20-\x7e\t\n]/.test(arg.text);
  return arg;
}

function add(arg: Arg, text: string, display = text): void {
  arg.text += text;
  arg.display += display;
}

function addNode(arg: Arg, node: Node, lookup: VarLookup, quoted: boolean): void {
  switch (node.type) {
    case "word":
    case "number":
    case "command_name":
      if (node.type === "command_name" && node.namedChildCount > 0) {
        for (const c of node.namedChildren) addNode(arg, c, lookup, quoted);
        return;
      }
      addUnquoted(arg, node.text, quoted);
      return;
    case "raw_string":
      add(arg, node.text.slice(1, -1));
      return;
    case "ansi_c_string":
      add(arg, decodeAnsiC(node.text.slice(2, -1)));
      return;
    case "string":
    case "translated_string":
    case "concatenation":
      addWithGaps(arg, node, lookup, node.type !== "concatenation" || quoted);
      return;
    case "string_content":
      add(arg, unescapeDouble(node.text));
      return;
    case "simple_expansion":
      addVariable(arg, node.text.slice(1), "", lookup);
      return;
    case "expansion":
      addExpansion(arg, node, lookup);
      return;
    case "command_substitution":
    case "process_substitution": {
      arg.dynamic = true;
      arg.subs.push(node);
      const out = node.type === "command_substitution" ? staticOutput(node, lookup) : null;
      add(arg, out ?? "", node.type === "process_substitution" ? "<(…)" : "$(…)");
      return;
    }
    case "arithmetic_expansion":
      arg.dynamic = true;
      add(arg, "", "$((…))");
      for (const c of node.descendantsOfType("command_substitution")) if (c) arg.subs.push(c);
      return;
    case "brace_expression":
      arg.brace = true;
      add(arg, node.text);
      return;
    default:
      // Anything else in word position (extglob, regex, errors): keep the raw text, treat as unknown.
      arg.dynamic = true;
      add(arg, node.text);
      for (const c of node.descendantsOfType(["command_substitution", "process_substitution"])) if (c) arg.subs.push(c);
  }
}

/** Children of strings and concatenations, plus the source text between them (quotes, literal runs). */
function addWithGaps(arg: Arg, node: Node, lookup: VarLookup, quoted: boolean): void {
  const isString = node.type === "string" || node.type === "translated_string";
  const full = node.text;
  const base = node.startIndex;
  let pos = isString ? (node.type === "translated_string" ? 2 : 1) : 0;
  const end = isString ? full.length - 1 : full.length;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const s = child.startIndex - base;
    if (s > pos) gap(arg, full.slice(pos, s), isString || quoted);
    addNode(arg, child, lookup, isString || quoted);
    pos = Math.max(pos, child.endIndex - base);
  }
  if (end > pos) gap(arg, full.slice(pos, end), isString || quoted);
}

function gap(arg: Arg, text: string, quoted: boolean): void {
  if (quoted) add(arg, unescapeDouble(text));
  else addUnquoted(arg, text, false);
}

function addUnquoted(arg: Arg, raw: string, quoted: boolean): void {
  if (quoted) {
    add(arg, unescapeDouble(raw));
    return;
  }
  if (!/[\\*?[{]/.test(raw)) {
    add(arg, raw);
    return;
  }
  let out = "";
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === "\\") {
      const next = raw[i + 1];
      if (next === "\n") { i++; continue; }
      if (next !== undefined) { out += next; i++; }
      continue;
    }
    if (ch === "*" || ch === "?" || ch === "[") arg.glob = true;
    if (ch === "{" && /\{[^{}]*(,|\.\.)[^{}]*\}/.test(raw.slice(i))) arg.brace = true;
    out += ch;
  }
  if (out.startsWith("~") && arg.text === "") {
    // Tilde expansion: `~` and `~/x` are the home directory; keep the marker.
    add(arg, out);
    return;
  }
  add(arg, out);
}

function addVariable(arg: Arg, name: string, fallback: string, lookup: VarLookup): void {
  arg.vars.push(name);
  if (name === "HOME") { add(arg, "~", "${HOME}"); arg.dynamic = true; return; }
  const known = lookup(name);
  arg.dynamic = true;
  add(arg, known ?? fallback, "${" + name + "}");
}

const EXPANSION = /^\$\{(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])(\[[^\]]*\])?(.*)\}$/s;

function addExpansion(arg: Arg, node: Node, lookup: VarLookup): void {
  const m = EXPANSION.exec(node.text);
  for (const c of node.descendantsOfType(["command_substitution", "process_substitution"])) if (c) arg.subs.push(c);
  if (!m) { arg.dynamic = true; add(arg, "", node.text); return; }
  const [, hash, name, , rest] = m;
  if (hash) { arg.dynamic = true; add(arg, "0", node.text); return; }
  const op = /^(:?[-=?+])(.*)$/s.exec(rest ?? "");
  if (op && (op[1] === ":?" || op[1] === "?")) {
    arg.guarded = true;
    arg.vars.push(name!);
    arg.dynamic = true;
    add(arg, lookup(name!) ?? "", "${" + name! + "}");
    return;
  }
  if (op && (op[1] === ":-" || op[1] === "-" || op[1] === ":=" || op[1] === "=")) {
    arg.vars.push(name!);
    arg.dynamic = true;
    const dflt = op[2] ?? "";
    const known = lookup(name!);
    add(arg, known ?? (/[$`]/.test(dflt) ? "" : stripQuotes(dflt)), "${" + name! + "}");
    return;
  }
  addVariable(arg, name!, "", (n) => (rest ? undefined : lookup(n)));
}

/**
 * The output of `$(echo …)` / `$(printf …)` with static arguments, trailing newlines removed as the shell
 * does; null for anything else. Lets `$(echo rm) -rf /` be judged as `rm -rf /`.
 */
export function staticOutput(sub: Node, lookup: VarLookup = NO_VARS): string | null {
  const inner = sub.namedChildren;
  if (inner.length !== 1 || inner[0]!.type !== "command") return null;
  const cmd = inner[0]!;
  const nameNode = cmd.childForFieldName("name");
  if (!nameNode) return null;
  const name = resolveWord(nameNode, lookup);
  if (name.dynamic || (name.text !== "echo" && name.text !== "printf")) return null;
  const words: string[] = [];
  for (const a of cmd.childrenForFieldName("argument")) {
    const w = resolveWord(a, lookup);
    if (w.dynamic) return null;
    words.push(w.text);
  }
  if (name.text === "echo" && words[0] && /^-[neE]+$/.test(words[0])) words.shift();
  const text = name.text === "printf" ? (words[0] ?? "").replace(/%s/g, () => words.splice(1, 1)[0] ?? "").replace(/\\n/g, "\n") : words.join(" ");
  return text.replace(/\n+$/, "");
}

function stripQuotes(s: string): string {
  return s.replace(/^'(.*)'$/s, "$1").replace(/^"(.*)"$/s, "$1");
}

function unescapeDouble(s: string): string {
  if (!s.includes("\\")) return s;
  return s.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c));
}

/** Decodes the body of a `$'…'` string (bash ANSI-C quoting). */
export function decodeAnsiC(body: string): string {
  const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\" || i + 1 >= body.length) { out += ch; continue; }
    const n = body[i + 1]!;
    if (simple[n] !== undefined) { out += simple[n]; i++; continue; }
    let m: RegExpExecArray | null;
    const rest = body.slice(i + 1);
    if ((m = /^[0-7]{1,3}/.exec(rest))) { out += String.fromCharCode(parseInt(m[0], 8) & 0xff); i += m[0].length; continue; }
    if ((m = /^x([0-9a-fA-F]{1,2})/.exec(rest))) { out += String.fromCharCode(parseInt(m[1]!, 16)); i += m[0].length; continue; }
    if ((m = /^u([0-9a-fA-F]{1,4})/.exec(rest)) || (m = /^U([0-9a-fA-F]{1,8})/.exec(rest))) {
      const cp = parseInt(m[1]!, 16);
      out += cp <= 0x10ffff ? String.fromCodePoint(cp) : "";
      i += m[0].length;
      continue;
    }
    if ((m = /^c(.)/s.exec(rest))) { out += String.fromCharCode(m[1]!.charCodeAt(0) & 0x1f); i += 2; continue; }
    out += ch + n;
    i++;
  }
  return out;
}
