import { calculator } from "./calculators.ts";
import type { Cmd } from "../command.ts";
import { codeFromArgs, sourceFile } from "../code.ts";
import { emit, type Ctx, type Scope } from "../context.ts";
import { INTERPRETERS, SHELLS } from "../table.ts";
import { WRAPPERS } from "../wrappers.ts";
import { fdExec, findExec } from "./per-file.ts";
import { gitConfigCode } from "./git.ts";
import { atJob, interpreter, shell, sshRemote, suLike } from "./shells.ts";
import { awkProgram, sedExec } from "./text-programs.ts";
import { unwrap } from "./wrappers.ts";

/**
 * A carrier takes a command whose words carry another command or program (a shell string, a wrapped command,
 * a script, find -exec…) and hands that inner code to the analyser. Called after the command's own rules.
 */
export type Carrier = (cmd: Cmd, ctx: Ctx, scope: Scope) => void;

const alias: Carrier = (cmd, ctx, scope) => {
  for (const a of cmd.args) {
    const eq = a.text.indexOf("=");
    if (eq > 0) codeFromArgs([{ ...a, text: a.text.slice(eq + 1) }], ctx, scope, cmd);
  }
};

/** trap CODE SIGNAL…: CODE runs when the signal (or EXIT) arrives. `trap -p`, `trap -l`, `trap - SIG` run nothing. */
const trap: Carrier = (cmd, ctx, scope) => {
  const args = cmd.args[0]?.text === "--" ? cmd.args.slice(1) : cmd.args;
  const code = args[0];
  if (!code || (code.text.startsWith("-") && args === cmd.args)) return;
  codeFromArgs([code], ctx, scope, cmd);
};

/** fc without -l edits and re-runs commands from the shell history, which the engine cannot see. */
const fc: Carrier = (cmd, ctx, scope) => {
  if (cmd.args.some((a) => /^-[a-zA-Z]*l/.test(a.text))) return;
  emit(ctx, scope, "opaque_code", cmd.node, "fc re-runs commands from the shell history");
};

const table: Record<string, Carrier> = {
  trap,
  fc,
  eval: (cmd, ctx, scope) => { codeFromArgs(cmd.args, ctx, scope, cmd); },
  source: (cmd, ctx, scope) => { sourceFile(cmd.args[0], ctx, scope, cmd); },
  ".": (cmd, ctx, scope) => { sourceFile(cmd.args[0], ctx, scope, cmd); },
  alias,
  su: suLike,
  sg: suLike,
  find: findExec,
  fd: fdExec,
  fdfind: fdExec,
  sed: sedExec,
  awk: awkProgram, gawk: awkProgram, mawk: awkProgram, nawk: awkProgram, "busybox-awk": awkProgram,
  at: atJob,
  batch: atJob,
  ssh: sshRemote,
  git: gitConfigCode,
  dc: calculator,
  bc: calculator,
};
// Precedence when a name is in several lists: wrapper, then shell, then interpreter.
for (const name of INTERPRETERS) table[name] = interpreter;
for (const name of SHELLS) table[name] = shell;
for (const name of Object.keys(WRAPPERS)) table[name] = unwrap;

/** Carriers by normalised command name. A command with a carrier gets no base-level signal of its own. */
export const CARRIERS: ReadonlyMap<string, Carrier> = new Map(Object.entries(table));
