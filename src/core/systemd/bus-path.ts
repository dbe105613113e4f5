/**
 * D-Bus object paths of systemd units (org.freedesktop.systemd1). A unit name is one path label escaped
 * with systemd's bus-label scheme: ASCII letters and digits are kept except a digit in first position;
 * every other byte, including `_` itself, becomes `_` + two lowercase hex digits; the empty string is `_`.
 * This is applied to the unit name as-is, so a `\x2d` inside a name becomes `_5cx2d` (two layers).
 * login1 uses a different scheme for users (`_<uid>`), see {@link login1UserPath}.
 */

/** Object path prefix of units on the systemd1 manager. */
export const UNIT_PATH_PREFIX = "/org/freedesktop/systemd1/unit/";

function isAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Escapes one object-path label (systemd's bus_label_escape). Unit names are ASCII. */
export function escapeBusLabel(s: string): string {
  if (s.length === 0) return "_";
  let out = "";
  const bytes = new TextEncoder().encode(s);
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (isAlpha(c) || (i > 0 && isDigit(c))) out += String.fromCharCode(c);
    else out += `_${c.toString(16).padStart(2, "0")}`;
  }
  return out;
}

function hexVal(c: number): number {
  if (isDigit(c)) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** Reverses {@link escapeBusLabel}; null when the label holds a malformed `_` sequence or a bad character. */
export function unescapeBusLabel(label: string): string | null {
  if (label === "_") return "";
  const bytes: number[] = [];
  for (let i = 0; i < label.length; i++) {
    const c = label.charCodeAt(i);
    if (c === 0x5f) {
      const hi = hexVal(label.charCodeAt(i + 1));
      const lo = hexVal(label.charCodeAt(i + 2));
      if (hi < 0 || lo < 0) return null;
      bytes.push(hi * 16 + lo);
      i += 2;
    } else if (isAlpha(c) || isDigit(c)) {
      bytes.push(c);
    } else {
      return null;
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

/** The systemd1 object path of a unit: `dbus-broker.service` → `/org/freedesktop/systemd1/unit/dbus_2dbroker_2eservice`. */
export function unitObjectPath(unit: string): string {
  return UNIT_PATH_PREFIX + escapeBusLabel(unit);
}

/** The unit name of a systemd1 unit object path, or null when the path is not one. */
export function unitNameFromObjectPath(path: string): string | null {
  if (!path.startsWith(UNIT_PATH_PREFIX)) return null;
  const label = path.slice(UNIT_PATH_PREFIX.length);
  if (label.length === 0 || label.includes("/")) return null;
  return unescapeBusLabel(label);
}

/** login1's user object path: `_` followed by the decimal uid (not the systemd1 label scheme). */
export function login1UserPath(uid: number): string {
  if (!Number.isInteger(uid) || uid < 0 || uid > 0xffffffff) throw new RangeError(`invalid uid ${uid}`);
  return `/org/freedesktop/login1/user/_${uid}`;
}
