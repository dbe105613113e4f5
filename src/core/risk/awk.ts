/**
 * Reading an awk program for the commands it runs (POSIX awk, gawk): `system(EXPR)`, `EXPR | getline`,
 * `print … | EXPR` and gawk's `|&` coprocesses hand EXPR to `sh -c`. Each EXPR is rebuilt as shell text: string
 * literals and variables assigned a literal (in the program or with `-v`) give their text; anything else (fields,
 * numbers from input, function calls) is a value only known at run time, written as `$awk_value` so the shell
 * analysis sees an unknown word there. The scanner skips strings, regular expressions and comments; a program it
 * cannot follow (an unterminated string or regex) is reported as such, never read as harmless.
 */

/** One command the program runs: its shell text, whether parts are only known at run time, and how it runs. */
export interface AwkCommand {
  text: string;
  dynamic: boolean;
  how: "system" | "getline" | "pipe";
}

/** What an awk program does that runs code: its commands, gawk's `@load`/`@include`, and whether the scan failed. */
export interface AwkScan {
  commands: AwkCommand[];
  /** Files read with `getline [var] < FILE`: the literal name, or AWK_VALUE when it is computed at run time. */
  reads: string[];
  loadsCode: boolean;
  unreadable: boolean;
}

interface Tok {
  kind: "str" | "re" | "id" | "num" | "op" | "nl";
  text: string;
}

/** Placeholder for a run-time value inside a rebuilt command line. */
export const AWK_VALUE = "$awk_value";

/** A `/` starts a regex after these tokens (anything else reads it as division, which only exposes more code). */
const REGEX_AFTER = new Set(["(", ",", "{", "}", ";", "!", "~", "&&", "||", "?", ":", "=", "==", "!="]);

function unescape(s: string): string {
  return s.replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t", r: "\r", "\\": "\\", '"': '"', "/": "/" } as Record<string, string>)[c] ?? `\\${c}`);
}

function tokenize(src: string): Tok[] | null {
  const out: Tok[] = [];
  let i = 0;
  const prev = (): Tok | undefined => out[out.length - 1];
  while (i < src.length) {
    const c = src[i]!;
    if (c === "\\" && src[i + 1] === "\n") { i += 2; continue; }
    if (c === " " || c === "\t" || c === "\r") { i++; continue; }
    if (c === "\n") { out.push({ kind: "nl", text: "\n" }); i++; continue; }
    if (c === "#") { while (i < src.length && src[i] !== "\n") i++; continue; }
    if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') { if (src[j] === "\n") return null; j += src[j] === "\\" ? 2 : 1; }
      if (j >= src.length) return null;
      out.push({ kind: "str", text: unescape(src.slice(i + 1, j)) });
      i = j + 1;
      continue;
    }
    const p = prev();
    if (c === "/" && (!p || p.kind === "nl" || (p.kind === "op" && REGEX_AFTER.has(p.text)))) {
      let j = i + 1;
      let cls = false;
      while (j < src.length && (cls || src[j] !== "/")) {
        if (src[j] === "\n") return null;
        if (src[j] === "[") cls = true;
        else if (src[j] === "]") cls = false;
        j += src[j] === "\\" ? 2 : 1;
      }
      if (j >= src.length) return null;
      out.push({ kind: "re", text: src.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    const id = /^[A-Za-z_@][A-Za-z0-9_]*/.exec(src.slice(i, i + 64));
    if (id) { out.push({ kind: "id", text: id[0] }); i += id[0].length; continue; }
    const num = /^[0-9.][0-9.eE]*/.exec(src.slice(i, i + 64));
    if (num) { out.push({ kind: "num", text: num[0] }); i += num[0].length; continue; }
    const op = /^(\|\||&&|\|&|==|!=|<=|>=|\+\+|--|\+=|-=|\*=|\/=|%=|\^=|>>|[^\s])/.exec(src.slice(i, i + 2))!;
    out.push({ kind: "op", text: op[0] });
    i += op[0].length;
  }
  return out;
}

/** Index of the token that closes the bracket opened at `open`, or -1. */
function closing(t: Tok[], open: number): number {
  let depth = 0;
  for (let i = open; i < t.length; i++) {
    if (t[i]!.kind !== "op") continue;
    if (t[i]!.text === "(") depth++;
    else if (t[i]!.text === ")" && --depth === 0) return i;
  }
  return -1;
}

/** The shell text an expression builds (string concatenation), with run-time parts as AWK_VALUE. */
function rebuild(expr: Tok[], vars: ReadonlyMap<string, string>): { text: string; dynamic: boolean } {
  let text = "";
  let dynamic = false;
  for (let i = 0; i < expr.length; i++) {
    const t = expr[i]!;
    if (t.kind === "op" && t.text === "$") i++; // a field: `$1`, `$NF`, `$(i+1)` (the bracket is skipped below)
    if (t.kind === "str") text += t.text;
    else if (t.kind === "id" && vars.has(t.text)) text += vars.get(t.text)!;
    else if (t.kind === "op" && (t.text === "(" || t.text === ")")) continue;
    else if (t.kind === "num" && /^\d+$/.test(t.text)) text += t.text;
    else { if (!text.endsWith(AWK_VALUE)) text += AWK_VALUE; dynamic = true; }
  }
  return { text, dynamic: dynamic || expr.length === 0 };
}

const STATEMENT_END = new Set([";", "}", ")"]);
const KEYWORDS = new Set(["print", "printf", "if", "while", "for", "do", "return", "in", "getline", "else", "BEGIN", "END"]);

/** Variables a program assigns one string literal to (a second or non-literal assignment makes it unknown). */
function literalVars(t: Tok[], given: ReadonlyMap<string, string>): Map<string, string> {
  const vars = new Map(given);
  const seen = new Set<string>();
  for (let i = 0; i + 1 < t.length; i++) {
    const name = t[i]!;
    const op = t[i + 1]!;
    if (name.kind !== "id" || op.kind !== "op" || !/^([+\-*/%^]?=)$/.test(op.text) || t[i - 1]?.text === "$") continue;
    const value = t[i + 2];
    const end = t[i + 3];
    const literal = op.text === "=" && value?.kind === "str" && (!end || end.kind === "nl" || STATEMENT_END.has(end.text));
    if (literal && !seen.has(name.text)) vars.set(name.text, value.text);
    else vars.delete(name.text);
    seen.add(name.text);
  }
  // getline VAR, split(…, VAR), sub/gsub targets and for-in loops assign at run time.
  for (let i = 0; i + 1 < t.length; i++) if (t[i]!.text === "getline" && t[i + 1]!.kind === "id") vars.delete(t[i + 1]!.text);
  return vars;
}

/** Scans an awk program; `given` are `-v name=value` assignments known from the command line. */
export function scanAwk(program: string, given: ReadonlyMap<string, string> = new Map()): AwkScan {
  const t = tokenize(program);
  if (!t) return { commands: [], reads: [], loadsCode: false, unreadable: true };
  const vars = literalVars(t, given);
  const commands: AwkCommand[] = [];
  let loadsCode = false;
  const reads: string[] = [];
  for (let i = 0; i < t.length; i++) {
    const tok = t[i]!;
    // getline [var] < FILE reads another file (a string literal, a variable known from -v or the program, else unknown).
    if (tok.kind === "id" && tok.text === "getline") {
      const lt = t[i + 1]?.text === "<" ? i + 1 : t[i + 2]?.text === "<" && t[i + 1]?.kind === "id" ? i + 2 : -1;
      const f = lt >= 0 ? t[lt + 1] : undefined;
      if (f) reads.push(f.kind === "str" && t[lt + 2]?.kind !== "str" ? f.text : f.kind === "id" && vars.has(f.text) ? vars.get(f.text)! : AWK_VALUE);
    }
    // @load, @include and gawk's indirect calls (`f = "system"; @f("…")`) run code the scan cannot follow.
    if (tok.kind === "id" && tok.text.startsWith("@")) loadsCode = true;
    if (tok.kind === "id" && tok.text === "system" && t[i + 1]?.text === "(") {
      const end = closing(t, i + 1);
      commands.push({ ...rebuild(t.slice(i + 2, end < 0 ? t.length : end), vars), how: "system" });
      continue;
    }
    if (tok.kind !== "op" || (tok.text !== "|" && tok.text !== "|&")) continue;
    if (t[i + 1]?.kind === "id" && t[i + 1]!.text === "getline") {
      // EXPR | getline: EXPR is the operand before the bar (a bracketed group or a run of strings and names).
      let j = i - 1;
      if (t[j]?.text === ")") {
        let depth = 0;
        for (; j >= 0; j--) { if (t[j]!.text === ")") depth++; else if (t[j]!.text === "(" && --depth === 0) break; }
      } else {
        const operand = (x: Tok): boolean => x.kind === "str" || x.kind === "num" || x.text === "$" || (x.kind === "id" && !KEYWORDS.has(x.text));
        while (j > 0 && operand(t[j - 1]!)) j--;
      }
      commands.push({ ...rebuild(t.slice(Math.max(j, 0), i), vars), how: "getline" });
    } else {
      // print … | EXPR: EXPR runs to the end of the statement.
      let j = i + 1;
      let depth = 0;
      for (; j < t.length; j++) {
        const x = t[j]!;
        if (x.kind === "nl" && depth === 0) break;
        if (x.text === "(") depth++;
        else if (x.text === ")" && --depth < 0) break;
        else if (depth === 0 && (x.text === ";" || x.text === "}")) break;
      }
      commands.push({ ...rebuild(t.slice(i + 1, j), vars), how: "pipe" });
    }
  }
  return { commands, reads, loadsCode, unreadable: false };
}
