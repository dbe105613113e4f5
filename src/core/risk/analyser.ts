import type { Tree } from "web-tree-sitter";
import { commandName } from "./command.ts";
import { emit, type Ctx, type Scope } from "./context.ts";
import { analyseText } from "./parse.ts";
import { settleRuns } from "./fetched.ts";
import type { Rule } from "./rule.ts";
import { FOREIGN_SHELLS, SHELLS } from "./table.ts";
import type { FoundCommand, Signal } from "./types.ts";

/**
 * The analyser's entry point. The work is split by responsibility:
 * - context.ts: the state of one analysis (signals, limits) and the lexical scope (variables, cwd, functions);
 * - parse.ts: limits and pre-scan, parsing a string, unparseable input, re-parsing nested strings;
 * - walk.ts: the syntax tree (lists, pipelines, redirections, assignments, functions, simple commands);
 * - inspect.ts: one simple command (its identity, the rules, its carrier, its base level);
 * - code.ts: code reaching a shell (words, standard input, sourced files);
 * - carriers/: the table of commands that carry other commands (shells, wrappers, find -exec, sed, awk…).
 */

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

/** Raw findings of one analysis, before the verdict is computed. */
export interface Findings {
  signals: Signal[];
  commands: FoundCommand[];
}

/** Analyses `text` (already size-checked by the caller) and returns every signal and command found. */
export function analyse(text: string, parser: ShellParser, rules: RuleBook, interpreter: string): Findings {
  const ctx: Ctx = {
    parser, rules, input: text, ascii: !/[^\x00-\x7f]/.test(text), signals: [], seen: new Set(), commands: [],
    nodes: 0, nesting: 0, parses: 0, parsedChars: 0, words: 0, cmds: 0, complex: false, fetched: new Map(), runs: [],
  };
  const scope: Scope = { depth: 0, origin: null, vars: new Map(), cwd: undefined, written: new Map(), functions: new Set(), via: [] };
  const shell = commandName(interpreter || "bash");
  if (!SHELLS.has(shell)) {
    // The line is fed to an interpreter the engine cannot read: it is code nobody analysed.
    emit(ctx, scope, "opaque_code", null, `interpreter "${shell}" is not a shell the engine can analyse`);
  } else {
    // A shell with another grammar: what bash's grammar finds still counts, but the line stays at least high.
    if (FOREIGN_SHELLS.has(shell)) emit(ctx, scope, "foreign_shell", null, shell);
    analyseText(text, ctx, scope);
    settleRuns(ctx);
  }
  return { signals: ctx.signals, commands: ctx.commands };
}
