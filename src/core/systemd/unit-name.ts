/**
 * Unit-name rules, following systemd's own validator (unit_name_is_valid): a name is
 * `PREFIX[@INSTANCE].TYPE`, at most 255 characters, PREFIX non-empty from [A-Za-z0-9:_.\-\\], INSTANCE
 * from the same set plus `@`, TYPE one of {@link UNIT_TYPES}. Templates are `PREFIX@.TYPE`.
 * hostgate is stricter in one place: a backslash must start a `\xNN` escape (two hex digits), which is the
 * only form systemd-escape produces. Pure: no I/O. Everything here runs in linear time without regexes.
 */
import { HostgateError } from "../errors.ts";

/** Every unit type systemd knows (for validation). */
export const UNIT_TYPES = ["service", "socket", "target", "device", "mount", "automount", "swap", "timer", "path", "slice", "scope"] as const;
export type UnitType = (typeof UNIT_TYPES)[number];

/** The unit types hostgate represents as resources and lists (a subset of {@link UNIT_TYPES}). */
export const SUPPORTED_UNIT_TYPES = ["service", "timer", "socket", "target", "mount", "path"] as const;
export type SupportedUnitType = (typeof SUPPORTED_UNIT_TYPES)[number];

/** Longest valid unit name in characters (systemd's UNIT_NAME_MAX minus the NUL). */
export const UNIT_NAME_MAX = 255;

/** The parts of a valid unit name. `instance` is null for plain units, "" for templates. */
export interface UnitNameParts {
  name: string;
  prefix: string;
  instance: string | null;
  type: UnitType;
  kind: "plain" | "template" | "instance";
}

/** True for a unit type systemd knows. */
export function isUnitType(s: string): s is UnitType {
  return (UNIT_TYPES as readonly string[]).includes(s);
}

/** True for a unit type hostgate represents. */
export function isSupportedUnitType(s: string): s is SupportedUnitType {
  return (SUPPORTED_UNIT_TYPES as readonly string[]).includes(s);
}

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Characters valid in a unit-name prefix (systemd's VALID_CHARS): alphanumerics and `:-_.\`. */
export function isValidUnitChar(c: number): boolean {
  return isAlnum(c) || c === 0x3a || c === 0x2d || c === 0x5f || c === 0x2e || c === 0x5c;
}

/**
 * Why `s` (from `from`, exclusive `to`) is not a valid run of unit characters, or null. `allowAt` admits
 * `@` (instances). Backslashes must begin `\xNN`.
 */
function charsProblem(s: string, from: number, to: number, allowAt: boolean): string | null {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x40 && allowAt) continue;
    if (!isValidUnitChar(c)) {
      const ch = s[i]!;
      if (ch === "*" || ch === "?" || ch === "[") return `glob character '${ch}' at ${i}: a unit name is literal; list units with a pattern instead`;
      const shown = c < 0x20 || c === 0x7f ? `\\x${c.toString(16).padStart(2, "0")}` : ch;
      return `character '${shown}' at ${i} is not allowed (allowed: A-Z a-z 0-9 : _ . - \\xNN and one @)`;
    }
    if (c === 0x5c) {
      if (i + 3 >= to || s[i + 1] !== "x" || !isHex(s.charCodeAt(i + 2)) || !isHex(s.charCodeAt(i + 3))) {
        return `backslash at ${i} does not start a \\xNN escape`;
      }
      i += 3;
    }
  }
  return null;
}

/**
 * Why `name` is not a valid unit name, or null when it is. Messages name the offending character or part.
 */
export function unitNameProblem(name: string): string | null {
  if (name.length === 0) return "unit name is empty";
  if (name.length > UNIT_NAME_MAX) return `unit name is ${name.length} characters; the maximum is ${UNIT_NAME_MAX}`;
  const dot = name.lastIndexOf(".");
  if (dot < 0) return "unit name has no type suffix (e.g. .service)";
  const type = name.slice(dot + 1);
  if (!isUnitType(type)) return `unknown unit type suffix '.${type}' (known: ${UNIT_TYPES.join(", ")})`;
  if (dot === 0) return "unit name has an empty prefix";
  const at = name.indexOf("@");
  if (at === 0) return "unit name has an empty prefix before '@'";
  if (at < 0 || at > dot) return charsProblem(name, 0, dot, false);
  return charsProblem(name, 0, at, false) ?? charsProblem(name, at + 1, dot, true);
}

/** Parses a unit name; throws HostgateError `invalid_unit_name` with the reason when it is not valid. */
export function parseUnitName(name: string): UnitNameParts {
  const problem = unitNameProblem(name);
  if (problem !== null) {
    throw new HostgateError("invalid_unit_name", `invalid unit name ${JSON.stringify(name)}: ${problem}`, {
      hint: "Pass the full unit name with its type suffix, e.g. nginx.service or dev-disk-by\\x2duuid-1234.device; escape instance values with systemd-escape rules.",
      details: { unit: name },
    });
  }
  const dot = name.lastIndexOf(".");
  const type = name.slice(dot + 1) as UnitType;
  const at = name.indexOf("@");
  if (at < 0 || at > dot) return { name, prefix: name.slice(0, dot), instance: null, type, kind: "plain" };
  const instance = name.slice(at + 1, dot);
  return { name, prefix: name.slice(0, at), instance, type, kind: instance === "" ? "template" : "instance" };
}

/** True when `name` is a valid unit name. */
export function isValidUnitName(name: string): boolean {
  return unitNameProblem(name) === null;
}

/**
 * Turns a tool's unit argument into a full unit name. A name without any `.` gets `.<defaultType>`
 * appended (`nginx` → `nginx.service`), as systemctl does; a name with a `.` must already end in a known
 * type (`foo@bar.servie` is rejected, never turned into `foo@bar.servie.service`). Templates are rejected
 * unless `allowTemplate`. Throws `invalid_unit_name`.
 */
export function normalizeUnitArg(arg: string, defaultType: UnitType, opts: { allowTemplate?: boolean; requireType?: UnitType } = {}): string {
  const full = arg.includes(".") ? arg : `${arg}.${defaultType}`;
  const parts = parseUnitName(full);
  if (parts.kind === "template" && opts.allowTemplate !== true) {
    throw new HostgateError("invalid_unit_name", `${full} is a template; name an instance such as ${parts.prefix}@NAME.${parts.type}`, { details: { unit: full } });
  }
  if (opts.requireType !== undefined && parts.type !== opts.requireType) {
    throw new HostgateError("invalid_unit_name", `${full} is a .${parts.type} unit; this tool takes .${opts.requireType} units`, { details: { unit: full } });
  }
  return full;
}

/**
 * The argv for a systemctl verb on one unit: always puts `--` before the name, because unit names may begin
 * with `-` (the root mount is `-.mount`) and would otherwise be parsed as options.
 */
export function systemctlArgv(verb: string, unit: string, opts: { user?: boolean } = {}): string[] {
  return ["systemctl", ...(opts.user === true ? ["--user"] : []), verb, "--", unit];
}
