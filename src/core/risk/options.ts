import type { Arg } from "./words.ts";

/**
 * How one command reads its options (GNU getopt_long conventions unless `posix`): packed short flags
 * (`-Rf`), short options with attached or separate values (`-n5`, `-n 5`), `--long=value`, unambiguous
 * long-option abbreviations (`--recurs` → `--recursive`), options after operands (GNU permutation), and
 * `--` ending options.
 */
export interface OptionSpec {
  /** Short options that take a value, e.g. `"nu"`. */
  shortArgs?: string;
  /** Long options (without `--`) that take a value. */
  longArgs?: readonly string[];
  /** Long options that take no value; listed so abbreviations resolve. */
  longFlags?: readonly string[];
  /** Stop at the first operand (POSIX / wrapper style: the rest is another command). */
  posix?: boolean;
  /** Short option letters that are aliases of long names, e.g. `{ R: "recursive" }`. */
  aliases?: Readonly<Record<string, string>>;
}

/** Result of option parsing. Flags are keyed `-x` or `--name` (aliases resolved to the long name). */
export interface ParsedOptions {
  flags: Map<string, string[]>;
  operands: Arg[];
  /** With `posix`, the index in the input of the first operand (the start of the inner command), else -1. */
  stop: number;
}

/** Parses `args` (the words after the command name) against `spec`. Never throws. */
export function parseOptions(args: readonly Arg[], spec: OptionSpec): ParsedOptions {
  const flags = new Map<string, string[]>();
  const operands: Arg[] = [];
  const longs = [...(spec.longArgs ?? []), ...(spec.longFlags ?? [])];
  const set = (k: string, v: string): void => {
    const key = k.startsWith("--") ? k : spec.aliases?.[k.slice(1)] ? "--" + spec.aliases[k.slice(1)]! : k;
    const list = flags.get(key) ?? [];
    list.push(v);
    flags.set(key, list);
  };
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    const t = a.text;
    if (t === "--") { i++; break; }
    if (t.startsWith("--") && t.length > 2) {
      const eq = t.indexOf("=");
      const raw = eq < 0 ? t.slice(2) : t.slice(2, eq);
      const name = resolveLong(raw, longs);
      if (eq >= 0) set("--" + name, t.slice(eq + 1));
      else if (spec.longArgs?.includes(name)) { set("--" + name, args[i + 1]?.text ?? ""); i++; }
      else set("--" + name, "");
      continue;
    }
    if (t.startsWith("-") && t.length > 1 && !a.dynamic) {
      for (let j = 1; j < t.length; j++) {
        const c = t[j]!;
        if (spec.shortArgs?.includes(c)) {
          const attached = t.slice(j + 1);
          if (attached) set("-" + c, attached);
          else { set("-" + c, args[i + 1]?.text ?? ""); i++; }
          break;
        }
        set("-" + c, "");
      }
      continue;
    }
    if (spec.posix) return { flags, operands: args.slice(i), stop: i };
    operands.push(a);
  }
  const stop = spec.posix && i < args.length ? i : -1;
  for (; i < args.length; i++) operands.push(args[i]!);
  return { flags, operands, stop };
}

function resolveLong(raw: string, known: readonly string[]): string {
  if (known.includes(raw)) return raw;
  const hits = known.filter((k) => k.startsWith(raw));
  return hits.length === 1 ? hits[0]! : raw;
}

/** True when any of `names` (`-x` / `--name`) was given. */
export function hasFlag(p: ParsedOptions, ...names: string[]): boolean {
  return names.some((n) => p.flags.has(n));
}

/** All values given for any of `names`. */
export function flagValues(p: ParsedOptions, ...names: string[]): string[] {
  return names.flatMap((n) => p.flags.get(n) ?? []);
}
