import { innerCmd, type Cmd } from "../command.ts";
import type { Ctx, Scope } from "../context.ts";
import { inspect } from "../inspect.ts";
import { parseOptions, type OptionSpec } from "../options.ts";
import { literalArg, type Arg } from "../words.ts";
import { findNameFiltered } from "../rules/util.ts";

/** Carriers that run a command on every file below their start paths (find -exec, fd -x). */

export function findExec(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const args = cmd.args;
  const starts: Arg[] = [];
  let i = 0;
  while (i < args.length && !/^[-(!]/.test(args[i]!.text)) starts.push(args[i++]!);
  if (starts.length === 0) starts.push(literalArg("."));
  const exprStart = i;
  for (; i < args.length; i++) {
    const t = args[i]!.text;
    if (t !== "-exec" && t !== "-execdir" && t !== "-ok" && t !== "-okdir") continue;
    const nameFiltered = findNameFiltered(args.slice(exprStart, i));
    const argv: Arg[] = [];
    for (i++; i < args.length && args[i]!.text !== ";" && args[i]!.text !== "+"; i++) argv.push(args[i]!);
    if (argv.length === 0) continue;
    for (const start of starts.slice(0, 4)) {
      const replaced = argv.map((a) => (a.text.includes("{}") ? { ...a, text: a.text.replace(/\{\}/g, start.text), display: a.display.replace(/\{\}/g, start.display), dynamic: a.dynamic || start.dynamic } : a));
      if (!argv.some((a) => a.text.includes("{}"))) replaced.push(start);
      inspect(innerCmd(cmd, replaced, { everyPathUnder: true, nameFiltered, stdin: { kind: "none" } }), ctx, scope);
    }
  }
}

const FD_OPTS: OptionSpec = { shortArgs: "etdEcjSx", longArgs: ["extension", "type", "max-depth", "exclude", "color", "threads", "size", "changed-within", "changed-before", "owner", "base-directory", "path-separator", "search-path", "max-results", "exact-depth", "min-depth"] };

/** fd -x/-X CMD: CMD runs on every path below the search roots. */
export function fdExec(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const idx = cmd.args.findIndex((a) => ["-x", "--exec", "-X", "--exec-batch"].includes(a.text));
  if (idx < 0) return;
  const before = parseOptions(cmd.args.slice(0, idx), FD_OPTS).operands;
  const roots = before.length > 1 ? before.slice(1) : [literalArg(".")];
  const argv = cmd.args.slice(idx + 1);
  const end = argv.findIndex((a) => a.text === ";");
  const inner = end >= 0 ? argv.slice(0, end) : argv;
  if (inner.length === 0) return;
  for (const root of roots.slice(0, 4)) inspect(innerCmd(cmd, [...inner, root], { everyPathUnder: true, stdin: { kind: "none" } }), ctx, scope);
}