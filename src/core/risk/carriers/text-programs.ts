import { optionsOf, type Cmd } from "../command.ts";
import { emit, type Ctx, type Scope } from "../context.ts";
import type { OptionSpec } from "../options.ts";
import { analyseCode } from "../parse.ts";
import { scanSed } from "../sed.ts";
import type { Arg } from "../words.ts";

/** Carriers for text programs whose script can run commands (sed's e, awk's system() and pipes). */

const AWK_OPTS: OptionSpec = { shortArgs: "fvFil", longArgs: ["file", "assign", "field-separator", "include", "load", "source"] };

/**
 * awk programs can run commands (`system()`, `| getline`, `print | "cmd"`): a program built at run time is opaque
 * code; a literal one that pipes or calls system() is code in an interpreter the engine does not analyse.
 */
export function awkProgram(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = optionsOf(cmd, AWK_OPTS);
  const programs = [...valueAfter(cmd, ["--source"]), ...(p.flags.has("-f") || p.flags.has("--file") ? [] : p.operands.slice(0, 1))];
  if (p.flags.has("-f") || p.flags.has("--file")) emit(ctx, scope, "interpreter_code", cmd.node, "an awk program file");
  for (const prog of programs) {
    if (prog.dynamic) emit(ctx, scope, "opaque_code", cmd.node, "an awk program built at run time");
    else if (/\bsystem\s*\(|\|\s*getline|\bprint[^;}]*\|/.test(prog.text)) emit(ctx, scope, "interpreter_code", cmd.node, "an awk program that runs commands");
  }
}

const SED_OPTS: OptionSpec = { shortArgs: "efl", longArgs: ["expression", "file", "line-length"] };

/** The argument after a flag such as -e, when the flag and its value are separate words. */
const valueAfter = (cmd: Cmd, flags: readonly string[]): Arg[] => cmd.args.filter((_, i) => i > 0 && flags.includes(cmd.args[i - 1]!.text));

/** sed: scripts built at run time are opaque; the `e` commands of static scripts are analysed as shell code. */
export function sedExec(cmd: Cmd, ctx: Ctx, scope: Scope): void {
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