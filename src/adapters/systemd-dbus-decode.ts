/**
 * Decoding of systemd D-Bus replies (dbus-next values) into hostgate payloads. uint64 values arrive as
 * BigInt; variants as objects with `.value`.
 */
import type { ExecCommand, UnitListEntry } from "../core/systemd/payload.ts";

/** Unwraps a dbus-next Variant (or passes a plain value through). */
export function unwrap(v: unknown): unknown {
  return v !== null && typeof v === "object" && "signature" in v && "value" in v ? (v as { value: unknown }).value : v;
}

/** A property map from Properties.GetAll (a{sv}) with variants unwrapped. */
export type PropMap = Record<string, unknown>;

/** Unwraps every variant of a GetAll reply body[0]. */
export function propMap(body0: unknown): PropMap {
  const out: PropMap = {};
  if (body0 === null || typeof body0 !== "object") return out;
  for (const [k, v] of Object.entries(body0 as Record<string, unknown>)) out[k] = unwrap(v);
  return out;
}

/** A value as plain JSON: BigInt → number (uint64 max → null), recursively through arrays and objects. */
export function plain(v: unknown): unknown {
  if (typeof v === "bigint") return v === 0xffffffffffffffffn ? null : Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Uint8Array) return Array.from(v);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(unwrap(x))]));
  return v;
}

/** A string property, "" when absent. */
export function str(p: PropMap, k: string): string {
  const v = p[k];
  return typeof v === "string" ? v : "";
}

/** A numeric property (u, i, t) as a JS number, 0 when absent; uint64 max (unset) as null. */
export function num(p: PropMap, k: string): number | null {
  const v = p[k];
  if (typeof v === "bigint") return v === 0xffffffffffffffffn ? null : Number(v);
  if (typeof v === "number") return v;
  return 0;
}

/** A BigInt property (t), 0n when absent. */
export function big(p: PropMap, k: string): bigint {
  const v = p[k];
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return BigInt(v);
  return 0n;
}

/**
 * Decodes ExecStart-like properties, signature a(sasbttttuii): path, argv, ignore_errors, start realtime,
 * start monotonic, exit realtime, exit monotonic (µs), pid, code, status.
 */
export function decodeExecCommands(v: unknown): ExecCommand[] {
  if (!Array.isArray(v)) return [];
  return v.map((row: unknown): ExecCommand => {
    const r = row as unknown[];
    return {
      path: typeof r[0] === "string" ? r[0] : "",
      argv: Array.isArray(r[1]) ? r[1].filter((a): a is string => typeof a === "string") : [],
      ignore_errors: r[2] === true,
      pid: typeof r[7] === "number" ? r[7] : 0,
      code: typeof r[8] === "number" ? r[8] : 0,
      status: typeof r[9] === "number" ? r[9] : 0,
    };
  });
}

/** Decodes ListUnits/ListUnitsByPatterns rows, a(ssssssouso): name, description, load, active, sub, … */
export function decodeUnitRows(v: unknown): UnitListEntry[] {
  if (!Array.isArray(v)) return [];
  return v.map((row: unknown): UnitListEntry => {
    const r = row as string[];
    return { unit: r[0] ?? "", description: r[1] ?? "", load_state: r[2] ?? "", active_state: r[3] ?? "", sub_state: r[4] ?? "" };
  });
}

/** Decodes unit-file change lists, a(sss): type, file, destination. */
export function decodeChanges(v: unknown): { type: string; file: string; destination: string }[] {
  if (!Array.isArray(v)) return [];
  return v.map((row: unknown) => {
    const r = row as string[];
    return { type: r[0] ?? "", file: r[1] ?? "", destination: r[2] ?? "" };
  });
}
