import type { SyntaxNode as Node } from "./syntax.ts";
import type { Cmd } from "./command.ts";
import type { RuleBook, ShellParser } from "./analyser.ts";
import type { FoundCommand, Signal, Span } from "./types.ts";
import type { Fetched, FileRun } from "./fetched.ts";

/** Mutable state of one analysis (one input line, all nested parses). */
export interface Ctx {
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
  /** Files downloaders wrote in this line (fetched.ts), by key, with who wrote them. */
  fetched: Map<string, Fetched>;
  /** Files the line runs, matched against `fetched` when the analysis ends. */
  runs: FileRun[];
}

/** Lexical state: what the shell knows at this point of the line. Subshells get a copy. */
export interface Scope {
  depth: number;
  /** Span in the outer input that all findings of a re-parsed string point at. */
  origin: Span | null;
  vars: Map<string, string>;
  cwd: string | undefined;
  /** After `cd` to a relative directory from an unknown one: that directory, relative (download-then-run keys). */
  relCwd?: string;
  /** After `cd` to a directory built at run time: its glob form (`cd /proc/$PID` → `/proc/*`); see Cmd.cwdGuess. */
  cwdGuess?: string;
  written: Map<string, string>;
  functions: Set<string>;
  via: string[];
  /** Set inside a pipeline stage that is not the last: what runs here writes into a pipe. */
  pipedOut?: boolean;
}

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

/** The span findings at `node` point at: the outer string's span inside re-parsed code, else the node's bytes. */
export function spanOf(ctx: Ctx, scope: Scope, node: Node | null): Span {
  if (scope.origin) return scope.origin;
  if (!node) return { start: 0, end: toBytes(ctx, ctx.input.length) };
  return { start: toBytes(ctx, node.startIndex), end: toBytes(ctx, node.endIndex) };
}

/** Longest piece of source text quoted in a reason (longer is cut with "…"). */
const QUOTE_MAX = 120;

/** The source text of `node` as a reason quotes it: whitespace runs collapsed, cut to QUOTE_MAX. */
export function quoteNode(node: Node): string {
  const t = node.text.replace(/\s+/g, " ").trim();
  return t.length > QUOTE_MAX ? `${t.slice(0, QUOTE_MAX - 1)}…` : t;
}

/**
 * Records signal `id` (its rule must exist, else throws) once per span. The reason is the rule's, followed by
 * `detail` in brackets (a function is called only when the signal is new), or when there is none by the text of
 * `node`, so every finding says what it is about.
 */
export function emit(ctx: Ctx, scope: Scope, id: string, node: Node | null, detail?: string | (() => string)): void {
  const rule = ctx.rules.byId.get(id);
  if (!rule) throw new Error(`risk engine: signal "${id}" has no rule`);
  const span = spanOf(ctx, scope, node);
  const key = `${id}@${span.start}:${span.end}`;
  if (ctx.seen.has(key)) return;
  ctx.seen.add(key);
  if (typeof detail === "function") detail = detail();
  else if (detail === undefined && node) detail = quoteNode(node);
  ctx.signals.push({ id, severity: rule.severity, reason: detail ? `${rule.reason} (${detail})` : rule.reason, span });
}

/** Marks the analysis as beyond the limits: emits `too_complex` and stops further work. */
export function tooComplex(ctx: Ctx, scope: Scope, node: Node | null, why: string): void {
  ctx.complex = true;
  emit(ctx, scope, "too_complex", node, why);
}

/** A copy of `scope` for a subshell or substitution: its assignments and `cd` do not leak out. */
export function childScope(scope: Scope): Scope {
  return { ...scope, vars: new Map(scope.vars), written: new Map(scope.written), functions: new Set(scope.functions) };
}

/** Variable lookup over the values assigned earlier in the line (for resolveWord). */
export const lookupIn = (scope: Scope) => (name: string): string | undefined => scope.vars.get(name);

/** The scope for code re-parsed from a string of command `at`: one level deeper, findings point at `at`. */
export function nested(scope: Scope, ctx: Ctx, at: Cmd, via: string): Scope {
  return { ...childScope(scope), depth: scope.depth + 1, origin: spanOf(ctx, scope, at.node), via: [...at.via, via] };
}
