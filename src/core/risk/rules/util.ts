import { optionsOf, type Cmd } from "../command.ts";
import { hasFlag, type OptionSpec } from "../options.ts";
import { globBase, normalisePath } from "../paths.ts";
import type { Arg } from "../words.ts";

/** Normalised path an operand names, with the working directory applied and a glob cut to its base. */
export function targetPath(cmd: Cmd, a: Arg): string {
  const p = normalisePath(a.text, cmd.cwd);
  return a.glob ? globBase(p) : p;
}

/** Option grammars shared by several rules (kept as constants so parses are cached per command). */
export const SPECS = {
  rm: { longFlags: ["recursive", "force", "interactive", "dir", "verbose", "no-preserve-root", "preserve-root", "one-file-system"], aliases: { R: "recursive", r: "recursive" } },
  chmod: { shortArgs: "", longArgs: ["reference"], longFlags: ["recursive", "changes", "silent", "quiet", "verbose", "no-preserve-root", "preserve-root", "dereference", "no-dereference"], aliases: { R: "recursive" } },
  chown: { shortArgs: "", longArgs: ["reference", "from"], longFlags: ["recursive", "changes", "silent", "quiet", "verbose", "no-preserve-root", "preserve-root", "dereference", "no-dereference"], aliases: { R: "recursive" } },
} satisfies Record<string, OptionSpec>;

/** True when the command recurses: its recursive flag, or it is applied to every file below (find -exec). */
export function recursive(cmd: Cmd, spec: OptionSpec): boolean {
  return cmd.everyPathUnder || hasFlag(optionsOf(cmd, spec), "--recursive");
}

/** The operands after option parsing. */
export function operands(cmd: Cmd, spec: OptionSpec): Arg[] {
  return optionsOf(cmd, spec).operands;
}

/** First operand that is not an option, for tools with subcommands after global options. */
export function subcommand(cmd: Cmd, spec: OptionSpec = { posix: true }): string {
  return optionsOf(cmd, spec).operands[0]?.text ?? "";
}

/** find's tests that select files by name or path. */
const NAME_TESTS = new Set(["-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"]);

/**
 * True when find's expression (the words before `-exec`) picks files by a name test that does not match most
 * names: at least one `-name PATTERN` (or -path, -regex…) that is narrow (see narrowPattern), none negated (`!`,
 * `-not`) and no alternative (`-o`, `-or`, `,`) that could match without it.
 */
export function findNameFiltered(expr: readonly Arg[]): boolean {
  let named = false;
  for (let i = 0; i < expr.length; i++) {
    const t = expr[i]!.text;
    if (t === "-o" || t === "-or" || t === ",") return false;
    if (!NAME_TESTS.has(t)) continue;
    const prev = expr[i - 1]?.text;
    const pattern = expr[i + 1];
    if (prev === "!" || prev === "-not" || !pattern || pattern.dynamic || !narrowPattern(pattern.text, /regex$/.test(t))) return false;
    named = true;
  }
  return named;
}

/**
 * A name pattern that picks a kind of file rather than most files: once bracket expressions (`[!x]`) count as
 * wildcards, it is anchored by a literal of two or more characters (not only dots and slashes) at its start or its
 * end (`*.pyc`, `__pycache__`, `core.*`, a -path ending in `/node_modules`). `*`, `*.*`, `[!x]*`, `*e*` are not narrow. A -regex is
 * read as a glob first (`.*` → `*`, `\.` → `.`, other `.` → `?`, anchors dropped).
 */
export function narrowPattern(pattern: string, regex = false): boolean {
  let p = regex ? pattern.replace(/^\^|\$$/g, "").replace(/\.\*|\.\+/g, "*").replace(/\\\./g, "\u0000").replace(/\./g, "?").replace(/\u0000/g, ".") : pattern;
  p = p.replace(/\[[^\]]*\]?/g, "?");
  const lead = /^[^*?]+/.exec(p)?.[0] ?? "";
  const tail = /[^*?]+$/.exec(p)?.[0] ?? "";
  const literal = (x: string): boolean => x.length >= 2 && x.replace(/[./]/g, "").length >= 1;
  return literal(lead) || literal(tail);
}
