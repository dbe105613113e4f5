import { optionsOf, type Cmd } from "../command.ts";
import { emit, type Ctx, type Scope } from "../context.ts";
import type { OptionSpec } from "../options.ts";
import { scanAwk } from "../awk.ts";
import { analyseCode } from "../parse.ts";
import { scanSed } from "../sed.ts";
import type { Arg } from "../words.ts";

/** Carriers for text programs whose script can run commands (sed's e, awk's system() and pipes). */

const AWK_OPTS: OptionSpec = { shortArgs: "fvFil", longArgs: ["file", "assign", "field-separator", "include", "load", "source"] };

/**
 * awk programs can run commands (`system()`, `| getline`, `print | "cmd"`). A program file or a program built at
 * run time is code the engine cannot read; in a literal program each command string is analysed as shell code
 * (awk hands it to `sh -c`), with the parts only known at run time as an unknown word. `awk_runs_command` (rules/
 * code-exec.ts, high) marks every awk that runs commands at all: awk is a text tool (corpus R110).
 */
export function awkProgram(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const { programs, fromFile } = awkPrograms(cmd);
  if (fromFile) emit(ctx, scope, "interpreter_code", cmd.node, "an awk program file");
  for (const prog of programs) {
    if (prog.dynamic) { emit(ctx, scope, "opaque_code", cmd.node, "an awk program built at run time"); continue; }
    for (const c of scanAwk(prog.text, awkAssignments(cmd)).commands) analyseCode(c.text, ctx, scope, cmd);
  }
}

/**
 * The program texts of an awk command line: gawk's `-e`/`--source` values and, unless a program file is given
 * (`-f`), the first operand. `fromFile` is set when (part of) the program comes from a file.
 */
export function awkPrograms(cmd: Cmd): { programs: Arg[]; fromFile: boolean } {
  const p = optionsOf(cmd, AWK_OPTS);
  const fromFile = p.flags.has("-f") || p.flags.has("--file") || cmd.args.some((a) => /^(-f.|--file=|--exec|-E$)/.test(a.text));
  const attached = cmd.args.filter((a) => /^--source=/.test(a.text)).map((a) => ({ ...a, text: a.text.slice(9) }));
  return { programs: [...valueAfter(cmd, ["--source", "-e"]), ...attached, ...(fromFile ? [] : p.operands.slice(0, 1))], fromFile };
}

/** `-v name=value` / `--assign=name=value` given to awk with a value known now: variables the program starts with. */
export function awkAssignments(cmd: Cmd): Map<string, string> {
  const out = new Map<string, string>();
  const a = cmd.args;
  for (let i = 0; i < a.length; i++) {
    const t = a[i]!.text;
    const v = t === "-v" || t === "--assign" ? a[++i] : /^(-v|--assign=)./.test(t) ? { ...a[i]!, text: t.replace(/^(-v|--assign=)/, "") } : undefined;
    const eq = v?.text.indexOf("=") ?? -1;
    if (v && eq > 0 && !v.dynamic) out.set(v.text.slice(0, eq), v.text.slice(eq + 1));
  }
  return out;
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