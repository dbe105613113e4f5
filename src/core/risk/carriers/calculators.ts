import type { Cmd } from "../command.ts";
import { emit, type Ctx, type Scope } from "../context.ts";
import { analyseCode } from "../parse.ts";

/**
 * dc and bc programs. GNU dc's `!` runs the rest of the line as a shell command (dc(1) "Miscellaneous"); `!<`, `!>` and
 * `!=` are negated comparisons. Some bc implementations hand `!` lines to dc or a shell, so bc is read the same way.
 * A program the line shows (`-e`, a here-string or here-document, a static `echo`/`printf` pipe) is scanned and each
 * command is analysed as shell; a dc program from a file or another command's output is opaque code.
 */
export function calculator(cmd: Cmd, ctx: Ctx, scope: Scope): void {
  const { texts, hidden } = programTexts(cmd);
  for (const text of texts) {
    for (const m of text.matchAll(/!(?![<>=])([^\n]*)/g)) {
      emit(ctx, scope, "calculator_runs_command", cmd.node, `${cmd.name} !${m[1]!.slice(0, 60)}`);
      if (m[1]!.trim()) analyseCode(m[1]!, ctx, scope, cmd);
      // Inside a `[…]` string run later by `x`, the command ends where the string does.
      const inString = m[1]!.split("]")[0]!;
      if (inString !== m[1] && inString.trim()) analyseCode(inString, ctx, scope, cmd);
    }
  }
  if (hidden && cmd.name === "dc") emit(ctx, scope, "opaque_code", cmd.node, `a dc program from ${hidden}`);
}

/** The program texts a calculator line shows, and where the rest comes from when it does not show it. */
function programTexts(cmd: Cmd): { texts: string[]; hidden: string | null } {
  const texts: string[] = [];
  let hidden: string | null = null;
  let files = 0;
  for (let i = 0; i < cmd.args.length; i++) {
    const a = cmd.args[i]!;
    const t = a.text;
    if (t === "-e" || t === "--expression") { const v = cmd.args[++i]; if (v) { if (v.dynamic) hidden = "a value built at run time"; texts.push(v.text); } continue; }
    if (/^(-e|--expression=)./.test(t)) { if (a.dynamic) hidden = "a value built at run time"; texts.push(t.replace(/^(-e|--expression=)/, "")); continue; }
    if (t === "-f" || t === "--file") { i++; files++; continue; }
    if (/^(-f|--file=)./.test(t)) { files++; continue; }
    if (!t.startsWith("-") || t === "-") files++;
  }
  if (files > 0) hidden = "a file";
  const s = cmd.stdin;
  if (s.kind === "heredoc") texts.push(s.body);
  else if (s.kind === "herestring") { texts.push(s.arg.text); if (s.arg.dynamic) hidden = "a value built at run time"; }
  else if (s.kind === "file") hidden = "a file";
  else if (s.kind === "pipe") {
    const src = s.from;
    if (src && (src.name === "echo" || src.name === "printf") && src.args.every((a) => !a.dynamic) && src.stdin.kind === "none") {
      texts.push(src.args.map((a) => a.text.replace(/\\n/g, "\n")).join(" "));
    } else hidden = "another command's output";
  }
  return { texts, hidden };
}
