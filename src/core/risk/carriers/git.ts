import { optionsOf, type Cmd } from "../command.ts";
import { codeFromArgs } from "../code.ts";
import type { Ctx, Scope } from "../context.ts";
import { flagValues, type OptionSpec } from "../options.ts";
import type { Arg } from "../words.ts";

/** git's global options that take a value (git(1)), so the verb and its operands are found after them. */
export const GIT_GLOBAL: OptionSpec = { posix: true, shortArgs: "Cc", longArgs: ["git-dir", "work-tree", "namespace", "config-env", "super-prefix", "exec-path", "list-cmds", "attr-source"] };

/**
 * Configuration keys whose value git hands to a shell (git-config(1)): pagers, editors, ssh and proxy commands, the
 * external diff, diff/merge/filter drivers, `!` aliases and `!` credential helpers, signing programs, upload-pack hooks.
 */
const SHELL_VALUE_KEY = /^(core\.(pager|editor|sshcommand|askpass|gitproxy|fsmonitor)|pager\..+|sequence\.editor|diff\.external|diff\..+\.(command|textconv)|merge\..+\.driver|filter\..+\.(clean|smudge|process)|alias\..+|credential\.(.+\.)?helper|gpg\.(.+\.)?program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)|sendemail\.sendmailcmd)$/i;

/** The shell command a config value names, or null (`!` aliases and helpers are shell; plain aliases are git verbs). */
function shellValue(key: string, value: string): string | null {
  const k = key.toLowerCase();
  if (!SHELL_VALUE_KEY.test(k)) return null;
  if (k.startsWith("alias.")) return value.startsWith("!") ? value.slice(1) : null;
  if (/^credential\./.test(k)) return value.startsWith("!") ? value.slice(1) : /[/\s]/.test(value) ? value : null;
  if (k === "core.fsmonitor" && /^(true|false|yes|no|on|off|0|1)$/i.test(value)) return null;
  return value;
}

/** Config values in the command line that git runs as shell commands: `git -c KEY=VALUE …`, `git config [set] KEY VALUE`. */
export function gitShellValues(cmd: Cmd): Arg[] {
  const out: Arg[] = [];
  const p = optionsOf(cmd, GIT_GLOBAL);
  for (const kv of flagValues(p, "-c")) {
    const eq = kv.indexOf("=");
    const v = eq > 0 ? shellValue(kv.slice(0, eq), kv.slice(eq + 1)) : null;
    if (v) out.push(argFrom(cmd, v));
  }
  const [verb, ...rest] = p.operands;
  if (verb?.text === "config") {
    const words = rest.filter((a) => !a.text.startsWith("-") && !["set", "add"].includes(a.text));
    const [key, value] = words;
    const v = key && value ? shellValue(key.text, value.text) : null;
    if (v !== null && value) out.push({ ...value, text: v });
  }
  return out;
}

/** A value taken from a `-c KEY=VALUE` word keeps the word's run-time parts (dynamic, substitutions). */
function argFrom(cmd: Cmd, text: string): Arg {
  const word = cmd.args.find((a) => a.text.endsWith(text)) ?? cmd.args[0]!;
  return { ...word, text, display: text };
}

/** git: configuration values it would run as shell commands are analysed as shell code (like sh -c). */
export function gitConfigCode(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  for (const v of gitShellValues(cmd)) codeFromArgs([v], ctx, scope, cmd);
}
