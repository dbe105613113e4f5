/**
 * systemd-escape semantics (plain, --path, --template, --unescape), pure and linear-time.
 * Plain escaping: `/` → `-`; alphanumerics, `:`, `_` and `.` are kept except a leading `.`; every other
 * byte of the UTF-8 encoding (including `-`, `\` and `@`) becomes `\xNN` with lowercase hex.
 * Unescaping reverses it: `-` → `/`, `\xNN` → byte. `--path` first normalises the path (collapses `//`,
 * drops `.` components and the leading/trailing `/`; refuses `..`) and turns the root into `-`.
 */
import { HostgateError } from "../errors.ts";
import { parseUnitName } from "./unit-name.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function keep(c: number, first: boolean): boolean {
  if ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) return true;
  if (c === 0x3a || c === 0x5f) return true;
  return c === 0x2e && !first;
}

function hex2(b: number): string {
  return b.toString(16).padStart(2, "0");
}

/** `systemd-escape STRING`: escapes one string for use inside a unit name. */
export function escapeUnitString(s: string): string {
  const bytes = encoder.encode(s);
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x2f) out += "-";
    else if (keep(b, i === 0)) out += String.fromCharCode(b);
    else out += `\\x${hex2(b)}`;
  }
  return out;
}

/**
 * Normalises an absolute or relative path the way systemd does before escaping it: collapses repeated
 * `/`, drops `.` components and leading/trailing `/`. Throws `invalid_params` for `..` components or an
 * empty string (systemd refuses to escape non-normalised paths).
 */
export function simplifyPath(path: string): string[] {
  if (path.length === 0) throw new HostgateError("invalid_params", "empty path cannot be escaped");
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") throw new HostgateError("invalid_params", `path ${JSON.stringify(path)} is not normalized ('..' is refused)`);
    parts.push(part);
  }
  return parts;
}

/** `systemd-escape --path PATH`: `/` becomes `-`, the root path becomes `-`. */
export function escapeUnitPath(path: string): string {
  const parts = simplifyPath(path);
  if (parts.length === 0) return "-";
  return escapeUnitString(parts.join("/"));
}

/**
 * `systemd-escape [--path] --template=TEMPLATE VALUE`: inserts the escaped value as the instance of a
 * template unit name (`nginx@.service` + `/srv/foo-bar` with path → `nginx@srv-foo\x2dbar.service`).
 * Throws `invalid_unit_name` when `template` is not a template.
 */
export function escapeIntoTemplate(template: string, value: string, opts: { path?: boolean } = {}): string {
  const parts = parseUnitName(template);
  if (parts.kind !== "template") {
    throw new HostgateError("invalid_unit_name", `${template} is not a template unit name (expected PREFIX@.TYPE)`);
  }
  const instance = opts.path === true ? escapeUnitPath(value) : escapeUnitString(value);
  return `${parts.prefix}@${instance}.${parts.type}`;
}

/**
 * `systemd-escape --unescape STRING`: `-` → `/`, `\xNN` → the byte. Throws `invalid_params` on a broken
 * escape or bytes that are not valid UTF-8. Strings beginning with `-` are data, never options.
 */
export function unescapeUnitString(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "-") {
      bytes.push(0x2f);
    } else if (ch === "\\") {
      const h = s.slice(i + 2, i + 4);
      if (s[i + 1] !== "x" || h.length !== 2 || !/^[0-9a-fA-F]{2}$/.test(h)) {
        throw new HostgateError("invalid_params", `broken escape at ${i} in ${JSON.stringify(s)}`);
      }
      bytes.push(parseInt(h, 16));
      i += 3;
    } else {
      for (const b of encoder.encode(ch)) bytes.push(b);
    }
  }
  try {
    return decoder.decode(new Uint8Array(bytes));
  } catch {
    throw new HostgateError("invalid_params", `unescaped bytes of ${JSON.stringify(s)} are not UTF-8`);
  }
}

/** `systemd-escape --unescape --path STRING`: like {@link unescapeUnitString} but yields an absolute path. */
export function unescapeUnitPath(s: string): string {
  if (s === "-") return "/";
  const raw = unescapeUnitString(s);
  const path = raw.startsWith("/") ? raw : `/${raw}`;
  simplifyPath(path);
  return path;
}
