import type { Arg } from "../words.ts";

/**
 * Per-program option tables: every option a program knows, with its arity and what its value does.
 *
 * An option table is written as one string of space-separated entries (kept terse so a table reads like the
 * option list of the program's manual):
 *
 *   `-o|--output=W`   spellings joined by `|`; `=` takes a value (attached `-ofile`, `--output=file`, or the
 *                     next word), `=?` an optional value that must be attached (`--color=auto`);
 *   effect letter after `=`: `W` the value is a file the program writes, `R` a file it reads, `P` a program it
 *                     runs, `C` a shell command line it runs, `H` a host or target handed to another program
 *                     (ssh): a value starting with `-` is option injection; `E` a NAME=VALUE put into the
 *                     environment of the program it runs; `S` a `Key=Value` setting (ssh -o, apt -o) whose key
 *                     may name a command (programs/settings.ts); `L` code the program loads into itself (a
 *                     library, crypto engine or provider, a config file that names one, a repository whose
 *                     config names programs: curl --engine, openssl -config, git --git-dir);
 *   `!signal_id`      the option on its own raises that rule's signal (`-K|--kill!kills_connections`).
 *
 * Long options may be abbreviated to any unambiguous prefix (GNU getopt_long, git parse-options); an ambiguous
 * prefix counts as unknown and carries the effects of every candidate (fail closed).
 */
export type OptionEffect = "writes" | "reads" | "program" | "command" | "host" | "env" | "setting" | "loads";

/** One option of a program. `canonical` is its long spelling when it has one, else its short one. */
export interface OptionDef {
  canonical: string;
  spellings: readonly string[];
  arg: "none" | "required" | "optional";
  effect: OptionEffect | null;
  signal: string | null;
}

/** How a program reads its command line. Written as data in programs/table.ts. */
export interface ProgramSpec {
  /** The option table (see the DSL above). */
  options: string;
  /**
   * False for partial tables (git's hundreds of diff options): only the listed options are known, others are not
   * reported as unknown, but an unknown long option that abbreviates a listed one with an effect takes its effect.
   */
  complete?: boolean;
  /** Options end at the first operand (the rest is a verb and its words, or another command). */
  posix?: boolean;
  /** `-NUM` is an option (head -5, tail -20). */
  numeric?: boolean;
  /** BSD-style option letters given without a dash (ps aux, ps e); same DSL, one letter per spelling. */
  bsd?: string;
  /** Operands the program writes: every operand, the last one (with at least two), or the one at an index. */
  writesOperands?: "all" | "last" | number;
  /** Options accepted after a verb (the first operand), by verb; `*` applies to every verb. */
  verbs?: Readonly<Record<string, string>>;
}

/** A ProgramSpec with its option strings compiled into lookups. */
export interface CompiledProgram {
  name: string;
  spec: ProgramSpec;
  options: OptionSet;
  bsd: OptionSet | null;
  verbs: ReadonlyMap<string, OptionSet>;
  /** Number of option spellings in this table (reported by the benchmark). */
  size: number;
  /** Some option runs, writes or reads something: a word that is only known at run time may be such an option. */
  effectful: boolean;
}

/** Compiled options: short letters, long names, whole single-dash words (`-TT`, `-out`), abbreviation list. */
export interface OptionSet {
  short: ReadonlyMap<string, OptionDef>;
  words: ReadonlyMap<string, OptionDef>;
  long: ReadonlyMap<string, OptionDef>;
  longNames: readonly string[];
  complete: boolean;
}

const EFFECTS: Readonly<Record<string, OptionEffect>> = { W: "writes", R: "reads", P: "program", C: "command", H: "host", E: "env", S: "setting", L: "loads" };

/**
 * Compiles an option string. Throws an Error naming the program and the entry when an entry is malformed or a
 * spelling is listed twice, so a broken table never loads.
 */
export function compileOptions(program: string, text: string, complete: boolean, bsd = false): OptionSet {
  const short = new Map<string, OptionDef>();
  const long = new Map<string, OptionDef>();
  const words = new Map<string, OptionDef>();
  for (const entry of text.trim().split(/\s+/).filter(Boolean)) {
    const m = /^([^=!]+)(=\??[WRPCHESL]?)?(?:!([a-z_]+))?$/.exec(entry);
    if (!m) throw new Error(`program table "${program}": malformed option entry ${JSON.stringify(entry)}`);
    const spellings = m[1]!.split("|");
    const value = m[2] ?? "";
    const def: OptionDef = {
      canonical: spellings.find((s) => s.startsWith("--")) ?? spellings[0]!,
      spellings,
      arg: value === "" ? "none" : value.startsWith("=?") ? "optional" : "required",
      effect: EFFECTS[value.replace(/^=\??/, "")] ?? null,
      signal: m[3] ?? null,
    };
    for (const s of spellings) {
      const isLong = s.startsWith("--") && s.length > 2;
      const isShort = bsd ? /^[A-Za-z]$/.test(s) : /^-[^-]$/.test(s);
      const isWord = !bsd && /^-[A-Za-z@][A-Za-z0-9_.-]+$/.test(s);
      if (!isLong && !isShort && !isWord) throw new Error(`program table "${program}": bad spelling ${JSON.stringify(s)} in ${JSON.stringify(entry)}`);
      const map = isLong ? long : isWord ? words : short;
      const key = isLong ? s.slice(2) : bsd ? s : isWord ? s : s.slice(1);
      if (map.has(key)) throw new Error(`program table "${program}": option ${s} listed twice`);
      map.set(key, def);
    }
  }
  return { short, long, words, longNames: [...long.keys()], complete };
}

/** Compiles a program's spec (all its option strings). Throws like compileOptions. */
export function compileProgram(name: string, spec: ProgramSpec): CompiledProgram {
  const complete = spec.complete ?? true;
  const options = compileOptions(name, spec.options, complete);
  const bsd = spec.bsd ? compileOptions(name, spec.bsd, complete, true) : null;
  const verbs = new Map<string, OptionSet>();
  for (const [verb, text] of Object.entries(spec.verbs ?? {})) {
    for (const v of verb.split("|")) verbs.set(v, compileOptions(`${name} ${v}`, text, false));
  }
  const count = (o: OptionSet): number => o.short.size + o.long.size + o.words.size;
  let size = count(options) + (bsd ? count(bsd) : 0);
  for (const v of new Set(verbs.values())) size += count(v);
  const sets = [options, ...(bsd ? [bsd] : []), ...verbs.values()];
  const effectful = sets.some((o) => [...o.short.values(), ...o.long.values(), ...o.words.values()].some((d) => d.effect !== null || d.signal !== null));
  return { name, spec, options, bsd, verbs, size, effectful };
}

/** One option as given on the command line, with its value (null for flags or an absent optional value). */
export interface OptionUse {
  def: OptionDef;
  value: Arg | null;
}

/** The command line read with a program's table. */
export interface ProgramParse {
  program: CompiledProgram;
  /** Options given, by canonical spelling, with their values. */
  flags: Map<string, (Arg | null)[]>;
  uses: OptionUse[];
  operands: Arg[];
  /** Options the table does not know (or ambiguous abbreviations, or options built at run time). */
  unknown: string[];
}

/** Reads `args` (the words after the program name) with `program`'s table. Never throws. */
export function parseProgram(program: CompiledProgram, args: readonly Arg[]): ProgramParse {
  const out: ProgramParse = { program, flags: new Map(), uses: [], operands: [], unknown: [] };
  const rest = readOptions(program.options, program.spec, args, out, program.spec.posix ?? false);
  const verb0 = out.operands[0];
  const verbSet = program.verbs.size > 0 && verb0 ? program.verbs.get(verb0.text) ?? program.verbs.get("*") : undefined;
  if (verbSet) {
    const verb = out.operands.pop()!;
    const tail: ProgramParse = { ...out, operands: [] };
    readOptions(verbSet, program.spec, rest, tail, false);
    out.operands = [verb, ...tail.operands];
  } else {
    out.operands.push(...rest);
  }
  return out;
}

/**
 * Reads options from `args` into `out`. With `stopAtOperand` the first operand is pushed and the remaining words
 * are returned unread; otherwise every word is read (GNU permutation) and nothing is returned.
 */
function readOptions(set: OptionSet, spec: ProgramSpec, args: readonly Arg[], out: ProgramParse, stopAtOperand: boolean): Arg[] {
  const use = (def: OptionDef, value: Arg | null): void => {
    out.uses.push({ def, value });
    const list = out.flags.get(def.canonical) ?? [];
    list.push(value);
    out.flags.set(def.canonical, list);
  };
  // The value after `--name=`: the name is literal, so the value's display (unknown parts as `${X}`) is the display's tail.
  const part = (a: Arg, text: string): Arg => ({ ...a, text, display: a.display.slice(a.display.indexOf("=") + 1) });
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const t = a.text;
    if (t === "--") {
      out.operands.push(...args.slice(i + 1, stopAtOperand ? i + 2 : undefined));
      return stopAtOperand ? args.slice(i + 2) : [];
    }
    if (t.startsWith("--") && t.length > 2) {
      const eq = t.indexOf("=");
      const name = eq < 0 ? t.slice(2) : t.slice(2, eq);
      const value = eq < 0 ? null : part(a, t.slice(eq + 1));
      const defs = lookupLong(set, name);
      if (defs.length !== 1) {
        if (defs.length > 1 || set.complete) out.unknown.push("--" + name);
        for (const d of defs) use(d, value);
        continue;
      }
      const def = defs[0]!;
      if (def.arg === "required" && value === null) { use(def, args[i + 1] ?? null); i++; continue; }
      if (def.arg === "none" && value !== null) out.unknown.push(t);
      use(def, value);
      continue;
    }
    const word = set.words.get(t);
    if (word) {
      if (word.arg === "required") { use(word, args[i + 1] ?? null); i++; } else use(word, null);
      continue;
    }
    if (t.startsWith("-") && t.length > 1) {
      if (a.dynamic) { out.unknown.push(a.display); continue; }
      if (spec.numeric && /^-\d+$/.test(t)) continue;
      readCluster(set, t.slice(1), "-", a, args[i + 1], out, use, () => i++);
      continue;
    }
    if (set === out.program.options && out.program.bsd && /^[A-Za-z]+$/.test(t) && !a.dynamic) {
      readCluster(out.program.bsd, t, "", a, args[i + 1], out, use, () => i++);
      continue;
    }
    // `sort "$OPTS" f`: a word that starts with a variable the engine does not know may expand to an option that
    // runs or writes something. (A command substitution's output comes from a command the engine judged.)
    if (a.dynamic && a.display.startsWith("${") && out.program.effectful) out.unknown.push(a.display);
    out.operands.push(a);
    if (stopAtOperand) return args.slice(i + 1);
  }
  return [];
}

function readCluster(
  set: OptionSet, letters: string, dash: string, a: Arg, next: Arg | undefined, out: ProgramParse,
  use: (def: OptionDef, value: Arg | null) => void, skipNext: () => void,
): void {
  for (let j = 0; j < letters.length; j++) {
    const def = set.short.get(letters[j]!);
    if (!def) {
      if (set.complete) out.unknown.push(dash + letters[j]!);
      continue;
    }
    if (def.arg === "none") { use(def, null); continue; }
    const attached = letters.slice(j + 1);
    if (attached) use(def, { ...a, text: attached, display: a.display.slice(dash.length + j + 1) });
    else if (def.arg === "required") { use(def, next ?? null); skipNext(); }
    else use(def, null);
    return;
  }
}

/** Long options `name` may mean: an exact match, else every option it abbreviates. */
function lookupLong(set: OptionSet, name: string): OptionDef[] {
  const exact = set.long.get(name);
  if (exact) return [exact];
  if (name === "") return [];
  const hits = new Set<OptionDef>();
  for (const n of set.longNames) if (n.startsWith(name)) hits.add(set.long.get(n)!);
  return [...hits];
}
