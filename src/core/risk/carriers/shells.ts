import { optionsOf, type Cmd } from "../command.ts";
import { codeFromArgs, sourceFile, sourceKinds, stdinCode } from "../code.ts";
import { emit, type Ctx, type Scope } from "../context.ts";
import { hasFlag, parseOptions, type OptionSpec } from "../options.ts";
import { FOREIGN_SHELLS } from "../table.ts";
import { literalArg } from "../words.ts";
import { noteRun } from "../fetched.ts";
import { embeddedShell } from "../interp-exec.ts";
import { analyseCode } from "../parse.ts";

/** Carriers for shells, interpreters and the programs that hand a shell its code (su, at, ssh). */

const SHELL_OPTS: OptionSpec = { posix: true, shortArgs: "oO", longArgs: ["rcfile", "init-file"] };

/** A shell: `-c STRING` is code, a script operand is sourced, otherwise standard input is the program. */
export function shell(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  if (FOREIGN_SHELLS.has(cmd.name)) emit(ctx, scope, "foreign_shell", cmd.node, cmd.name);
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

/** Another interpreter (python, perl, node…): any program it is given is `interpreter_code`; version/help only is nothing. */
export function interpreter(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  embeddedCommands(cmd, ctx, scope);
  const subs = cmd.args.flatMap((a) => a.subs);
  const kinds = sourceKinds(subs);
  if (kinds.download) { emit(ctx, scope, "download_to_interpreter", cmd.node); return; }
  const p = parseOptions(cmd.args, { posix: true, shortArgs: "cemWXI" });
  const keys = [...p.flags.keys()];
  if (p.operands.length === 0 && keys.length > 0 && keys.every((k) => ["-V", "--version", "-v", "-h", "--help"].includes(k))) return;
  const code = keys.some((k) => ["-c", "-e", "-m", "--eval", "--execute", "-E"].includes(k));
  if (!code && p.operands[0]) noteRun(ctx, scope, cmd.node, p.operands[0], `runs with ${cmd.name} the script`);
  if (code || p.operands.length > 0) { emit(ctx, scope, "interpreter_code", cmd.node, cmd.name); return; }
  stdinCode(cmd, ctx, scope, false);
  emit(ctx, scope, "interpreter_code", cmd.node, cmd.name);
}

/** Shell commands a one-liner or here-document hands to system()/exec (interp-exec.ts) are judged as shell code too. */
function embeddedCommands(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const texts = cmd.args.filter((a) => !a.dynamic && /[("'`{|/!]/.test(a.text)).map((a) => a.text);
  if (cmd.stdin.kind === "heredoc") texts.push(cmd.stdin.body);
  if (cmd.stdin.kind === "herestring" && !cmd.stdin.arg.dynamic) texts.push(cmd.stdin.arg.text);
  for (const t of texts) for (const line of embeddedShell(cmd.name, t)) analyseCode(line, ctx, scope, cmd);
}

/** at/batch run the job they read on standard input (or from -f FILE) later, in a shell. */
export function atJob(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = parseOptions(cmd.args, { shortArgs: "fqtM" });
  if (p.flags.has("-l") || p.flags.has("-r") || p.flags.has("-d") || p.flags.has("-c")) return;
  const file = p.flags.get("-f")?.[0];
  emit(ctx, scope, "unknown_command", cmd.node, "schedules a job");
  if (file !== undefined) sourceFile(literalArg(file), ctx, scope, cmd);
  else stdinCode(cmd, ctx, scope, true);
}

const SSH_OPTS: OptionSpec = { posix: true, shortArgs: "BbcDEeFIiJLlmOoPpQRSWw" };

/** ssh HOST COMMAND…: the command runs in a shell on the remote host; judge it like sh -c. */
export function sshRemote(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = parseOptions(cmd.args, SSH_OPTS);
  const remote = p.operands.slice(1);
  emit(ctx, scope, "unknown_command", cmd.node, "ssh runs commands on another host");
  if (remote.length) codeFromArgs(remote, ctx, scope, cmd);
}

/** su/sg: `-c`/`--command` strings are code; without one an interactive shell starts. */
export function suLike(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const p = parseOptions(cmd.args, { shortArgs: "cgGsw", longArgs: ["command", "group", "supp-group", "shell", "whitelist-environment", "session-command"] });
  const code = [...(p.flags.get("-c") ?? []), ...(p.flags.get("--command") ?? []), ...(p.flags.get("--session-command") ?? [])];
  if (code.length) { codeFromArgs(code.map(literalArg), ctx, scope, cmd); return; }
  if (cmd.name === "sg" && p.operands[1]) { codeFromArgs(p.operands.slice(1), ctx, scope, cmd); return; }
  emit(ctx, scope, "interactive_shell", cmd.node);
}