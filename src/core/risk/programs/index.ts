import type { Cmd } from "../command.ts";
import type { Arg } from "../words.ts";
import { compileProgram, parseProgram, type CompiledProgram, type OptionEffect, type ProgramParse } from "./spec.ts";
import { PROGRAM_TABLE } from "./table.ts";

/** Every program table, compiled once at load (a malformed table throws here, so it never loads). */
export const PROGRAMS: ReadonlyMap<string, CompiledProgram> = new Map(Object.entries(PROGRAM_TABLE).map(([name, spec]) => [name, compileProgram(name, spec)]));

/** Size of the option tables: programs, and option spellings across them (the benchmark reports both). */
export function programTableSize(): { programs: number; options: number } {
  let options = 0;
  for (const p of PROGRAMS.values()) options += p.size;
  return { programs: PROGRAMS.size, options };
}

/** Signal ids the tables name (checked against the rule book when the engine is built). */
export function tableSignals(): Set<string> {
  const out = new Set<string>();
  for (const p of PROGRAMS.values()) {
    for (const set of [p.options, ...(p.bsd ? [p.bsd] : []), ...p.verbs.values()]) {
      for (const d of [...set.short.values(), ...set.long.values(), ...set.words.values()]) if (d.signal) out.add(d.signal);
    }
  }
  return out;
}

/** `cmd` read with its program's option table (cached on the command), or null for programs without one. */
export function programOf(cmd: Cmd): ProgramParse | null {
  if (cmd.synthetic) return null;
  if (cmd.programCache !== undefined) return cmd.programCache;
  const program = PROGRAMS.get(cmd.name);
  cmd.programCache = program ? parseProgram(program, cmd.args) : null;
  return cmd.programCache;
}

/** Values of the options of `cmd` that have `effect` (files written, programs run…). */
export function optionValues(cmd: Cmd, effect: OptionEffect): Arg[] {
  const p = programOf(cmd);
  if (!p) return [];
  const out: Arg[] = [];
  for (const u of p.uses) if (u.def.effect === effect && u.value) out.push(u.value);
  return out;
}

/** True when an option of `cmd` raises the signal `id` on its own (ss -K, ps e, sysctl -w…). */
export function optionSignal(cmd: Cmd, id: string): boolean {
  return programOf(cmd)?.uses.some((u) => u.def.signal === id) ?? false;
}

/** Operands `cmd` writes according to its table (tee's files, uniq's and xxd's output, split's prefix). */
export function operandWrites(cmd: Cmd): Arg[] {
  const p = programOf(cmd);
  const w = p?.program.spec.writesOperands;
  if (!p || w === undefined) return [];
  if (w === "all") return p.operands;
  if (w === "last") return p.operands.length >= 2 ? [p.operands[p.operands.length - 1]!] : [];
  const a = p.operands[w];
  return a ? [a] : [];
}
