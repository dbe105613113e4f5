import type { SyntaxNode as Node } from "./syntax.ts";
import type { Arg } from "./words.ts";
import { parseOptions, type OptionSpec, type ParsedOptions } from "./options.ts";
import type { ProgramParse } from "./programs/spec.ts";

/** A redirection attached to a command: operator (`>`, `>>`, `<`, `&>`, `<<`, `<<<`…), target word. */
export interface Redirect {
  op: string;
  target: Arg | null;
  node: Node;
}

/** Where a command's standard input comes from, as far as the text shows. */
export type Stdin =
  | { kind: "none" }
  | { kind: "pipe"; from: Cmd | null; fromNode?: Node | null }
  | { kind: "heredoc"; body: string }
  | { kind: "herestring"; arg: Arg }
  | { kind: "file"; arg: Arg };

/**
 * One simple command as the rules see it, after wrapper removal. `name` is the normalised command name
 * (basename, quotes and escapes removed); `args` are the words after it. `everyPathUnder` is set when the
 * command is applied to every file below its operands (find -exec, fd -x); `unknownOperands` when more
 * operands arrive at run time (xargs); `nameFiltered` when find picks those files by a name test.
 */
export interface Cmd {
  name: string;
  argv0: Arg;
  args: Arg[];
  assigns: { name: string; value: Arg }[];
  redirects: Redirect[];
  stdin: Stdin;
  via: string[];
  node: Node;
  cwd: string | undefined;
  /**
   * When `cwd` is unknown because a `cd` target was built at run time (`cd /proc/$PID`): that target with each
   * run-time part as `*` (`/proc/*`), for rules that must assume the worst of a relative path (secret reads).
   */
  cwdGuess: string | undefined;
  everyPathUnder: boolean;
  /** With everyPathUnder: find selects the files by a real name test (`-name '*.pyc'`), not every file. */
  nameFiltered?: boolean;
  unknownOperands: boolean;
  /** Its standard output goes into a pipe to a later pipeline stage (unset for synthetic commands). */
  pipedOut?: boolean;
  /** Set for the pseudo-command that carries a compound statement's redirects. */
  synthetic: boolean;
  optionCache?: Map<OptionSpec, ParsedOptions>;
  /** The command line read with the program's option table (programs/), cached; null when it has none. */
  programCache?: ProgramParse | null;
  /** Files read by its script (sed r, awk getline, git diff --no-index), cached (rules/secrets.ts scriptReads). */
  scriptReadsCache?: string[];
  /** fileWrites(cmd), cached with the `synthetic` flag it was computed for (copies may flip it). */
  writesCache?: { synthetic: boolean; args: Arg[] };
}

/** The command name the shell will look up: the last path segment of the resolved first word. */
export function commandName(text: string): string {
  const i = text.lastIndexOf("/");
  return i >= 0 ? text.slice(i + 1) : text;
}

/** Parses `cmd`'s options against `spec` (cached per spec object, so keep specs as constants). */
export function optionsOf(cmd: Cmd, spec: OptionSpec): ParsedOptions {
  cmd.optionCache ??= new Map();
  let parsed = cmd.optionCache.get(spec);
  if (!parsed) {
    parsed = parseOptions(cmd.args, spec);
    cmd.optionCache.set(spec, parsed);
  }
  return parsed;
}

/** The fields a new command is built from; the rest start unset (no wrappers applied, caches empty). */
export type CmdFields = Pick<Cmd, "name" | "argv0" | "args" | "assigns" | "redirects" | "stdin" | "via" | "node" | "cwd" | "cwdGuess" | "synthetic" | "pipedOut">;

/**
 * A new command with every field present, always in the same order, so every Cmd (and every copy made with a spread,
 * as innerCmd does) has one object shape: V8 then keeps the rules' property reads monomorphic. Adding the optional
 * and cache fields later, in whatever order the rules happen to fill them, gave each command its own shape and made
 * every rule's reads slow (profiled for issue 19). Throws nothing.
 */
export function makeCmd(f: CmdFields): Cmd {
  return {
    name: f.name, argv0: f.argv0, args: f.args, assigns: f.assigns, redirects: f.redirects, stdin: f.stdin, via: f.via, node: f.node, cwd: f.cwd, cwdGuess: f.cwdGuess,
    everyPathUnder: false, nameFiltered: undefined, unknownOperands: false, pipedOut: f.pipedOut, synthetic: f.synthetic,
    optionCache: undefined, programCache: undefined, scriptReadsCache: undefined, writesCache: undefined,
  };
}

/** Copy of `cmd` that runs `argv` instead (wrapper removal, find -exec). */
export function innerCmd(outer: Cmd, argv: Arg[], extra: Partial<Cmd> = {}): Cmd {
  const argv0 = argv[0]!;
  return {
    ...outer,
    name: commandName(argv0.text),
    argv0,
    args: argv.slice(1),
    assigns: [],
    via: [...outer.via, outer.name],
    optionCache: undefined,
    programCache: undefined,
    writesCache: undefined,
    scriptReadsCache: undefined,
    synthetic: false,
    ...extra,
  };
}
