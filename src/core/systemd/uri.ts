/**
 * Unit resource URIs.
 *
 *   systemd://system/unit/{type}/{name}[/definition]
 *   systemd://user/{user}/unit/{type}/{name}[/definition]
 *
 * `{type}` is a supported unit type (see SUPPORTED_UNIT_TYPES) and `{name}` is the unit name WITHOUT its
 * `.type` suffix (the type is already in the URI): `nginx.service` → `.../unit/service/nginx`, the root
 * mount `-.mount` → `.../unit/mount/-`. `{name}` is percent-encoded: letters, digits and `-._~:@` stay
 * literal, every other byte (notably `\` as `%5C`) is `%XX` uppercase. Parsing accepts any percent-encoding
 * but {@link formatUnitUri} is canonical. `{user}` is a login name (`[a-z_][a-z0-9_-]*`, optionally ending
 * in `$`, ≤ 32) or a decimal uid. Refused: query, fragment, control characters, `.`/`..` segments,
 * templates (no runtime state), URIs over 1024 characters. Parsing is a single linear pass, no regexes.
 */
import { HostgateError } from "../errors.ts";
import { isSupportedUnitType, parseUnitName, SUPPORTED_UNIT_TYPES } from "./unit-name.ts";
import type { SupportedUnitType } from "./unit-name.ts";

/** Which manager a unit belongs to: the system manager or one user's manager. */
export type ManagerRef = { scope: "system" } | { scope: "user"; user: string };

/** A parsed unit URI. `unit` is the full unit name (with suffix). */
export interface UnitUri {
  manager: ManagerRef;
  type: SupportedUnitType;
  unit: string;
  definition: boolean;
}

/** Longest accepted URI in characters. */
export const UNIT_URI_MAX = 1024;
const SCHEME = "systemd://";

function isUnreserved(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) ||
    c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e || c === 0x3a || c === 0x40;
}

/** Percent-encodes one path segment (UTF-8 bytes), keeping letters, digits and `-._~:@`. */
export function encodeSegment(s: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(s)) {
    out += isUnreserved(b) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

function hexVal(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

function bad(uri: string, why: string): HostgateError {
  return new HostgateError("invalid_uri", `invalid unit URI: ${why}`, {
    hint: "Use systemd://system/unit/{type}/{name} or systemd://user/{user}/unit/{type}/{name}, as returned by list_units; {name} is the unit name without its type suffix.",
    details: { uri: uri.length > 200 ? `${uri.slice(0, 200)}…` : uri },
  });
}

/** Decodes a percent-encoded segment; throws on a broken `%`, control characters or invalid UTF-8. */
function decodeSegment(uri: string, seg: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < seg.length; i++) {
    const c = seg.charCodeAt(i);
    if (c === 0x25) {
      const hi = hexVal(seg.charCodeAt(i + 1));
      const lo = hexVal(seg.charCodeAt(i + 2));
      if (hi < 0 || lo < 0) throw bad(uri, `broken percent-escape in ${JSON.stringify(seg)}`);
      bytes.push(hi * 16 + lo);
      i += 2;
    } else if (c > 0x7e) {
      throw bad(uri, "non-ASCII character; percent-encode it");
    } else {
      bytes.push(c);
    }
  }
  for (const b of bytes) if (b < 0x20 || b === 0x7f) throw bad(uri, "control character");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    throw bad(uri, "percent-escapes are not UTF-8");
  }
}

/** True for a login name or decimal uid as accepted in `{user}`. */
export function isValidUserSegment(u: string): boolean {
  if (u.length === 0 || u.length > 32) return false;
  let digits = true;
  for (let i = 0; i < u.length; i++) {
    const c = u.charCodeAt(i);
    const isDigit = c >= 0x30 && c <= 0x39;
    const isLower = c >= 0x61 && c <= 0x7a;
    digits &&= isDigit;
    if (i === 0 && !(isLower || c === 0x5f || isDigit)) return false;
    if (i === u.length - 1 && c === 0x24 && i > 0) continue;
    if (!(isLower || isDigit || c === 0x5f || c === 0x2d)) return false;
  }
  if (digits) return u.length <= 10 && Number(u) <= 0xffffffff;
  return !(u.charCodeAt(0) >= 0x30 && u.charCodeAt(0) <= 0x39);
}

/**
 * Parses a unit URI (base or `/definition`). Throws HostgateError `invalid_uri` (shape, encoding, user,
 * type) or `invalid_unit_name` (the decoded name is not a valid unit name).
 */
export function parseUnitUri(uri: string): UnitUri {
  if (uri.length > UNIT_URI_MAX) throw bad(uri, `longer than ${UNIT_URI_MAX} characters`);
  if (!uri.startsWith(SCHEME)) throw bad(uri, "must start with systemd://");
  for (let i = 0; i < uri.length; i++) {
    const c = uri.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw bad(uri, "control character");
    if (c === 0x3f || c === 0x23) throw bad(uri, "query and fragment are not allowed");
  }
  const segs = uri.slice(SCHEME.length).split("/");
  let manager: ManagerRef;
  let rest: string[];
  if (segs[0] === "system") {
    manager = { scope: "system" };
    rest = segs.slice(1);
  } else if (segs[0] === "user") {
    const user = segs[1] ?? "";
    if (!isValidUserSegment(user)) throw bad(uri, `invalid user ${JSON.stringify(user)} (a login name or a uid)`);
    manager = { scope: "user", user };
    rest = segs.slice(2);
  } else {
    throw bad(uri, "authority must be 'system' or 'user'");
  }
  if (rest[0] !== "unit") throw bad(uri, "expected /unit/{type}/{name}");
  const type = rest[1] ?? "";
  if (!isSupportedUnitType(type)) throw bad(uri, `unsupported unit type ${JSON.stringify(type)} (supported: ${SUPPORTED_UNIT_TYPES.join(", ")})`);
  const rawName = rest[2] ?? "";
  if (rawName === "") throw bad(uri, "missing unit name");
  let definition = false;
  if (rest.length === 4 && rest[3] === "definition") definition = true;
  else if (rest.length !== 3) throw bad(uri, "unexpected path after the unit name (only /definition is allowed)");
  const name = decodeSegment(uri, rawName);
  if (name === "." || name === ".." || name.includes("/")) throw bad(uri, "'.', '..' and '/' are not unit names");
  const unit = `${name}.${type}`;
  const parts = parseUnitName(unit);
  if (parts.kind === "template") throw bad(uri, `${unit} is a template; templates have no resource, name an instance`);
  return { manager, type, unit, definition };
}

/**
 * Formats the canonical URI of a unit. Throws `invalid_unit_name` for an invalid name and `invalid_uri`
 * for an unsupported type or a template.
 */
export function formatUnitUri(manager: ManagerRef, unit: string, opts: { definition?: boolean } = {}): string {
  const parts = parseUnitName(unit);
  if (!isSupportedUnitType(parts.type)) throw bad(unit, `unsupported unit type .${parts.type}`);
  if (parts.kind === "template") throw bad(unit, `${unit} is a template`);
  const bare = unit.slice(0, unit.length - parts.type.length - 1);
  const base = manager.scope === "system" ? `${SCHEME}system` : `${SCHEME}user/${manager.user}`;
  return `${base}/unit/${parts.type}/${encodeSegment(bare)}${opts.definition === true ? "/definition" : ""}`;
}

/** The base (state) URI for a parsed URI, whether or not it named `/definition`. */
export function baseUriOf(u: UnitUri): string {
  return formatUnitUri(u.manager, u.unit);
}

/** The authority of a unit URI on another host: `systemd://host/<host id>/system/...` (or `/user/<user>/...`). */
const HOST_AUTHORITY = `${SCHEME}host/`;

/**
 * Splits a unit URI that names a host (issue 20): `systemd://host/<host>/system/unit/service/nginx` → host
 * `<host>` and the URI as that host's own manager sees it (`systemd://system/unit/service/nginx`). A URI
 * without `host/` is the local host's (`host` null), as before. Throws `invalid_uri` when the host segment is
 * not a host id (core/host-id.ts HOST_ID_PATTERN; percent-encoding is not decoded there).
 */
export function splitHostUnitUri(uri: string, hostPattern: RegExp): { host: string | null; uri: string } {
  if (!uri.startsWith(HOST_AUTHORITY)) return { host: null, uri };
  const rest = uri.slice(HOST_AUTHORITY.length);
  const slash = rest.indexOf("/");
  const host = slash < 0 ? rest : rest.slice(0, slash);
  if (!hostPattern.test(host)) throw bad(uri, `invalid host ${JSON.stringify(host)} (an inventory name from search_hosts)`);
  if (slash < 0) throw bad(uri, "expected systemd://host/{host}/system/unit/{type}/{name}");
  return { host, uri: `${SCHEME}${rest.slice(slash + 1)}` };
}

/** The URI of a unit on `host` (its own manager's URI `uri`, from formatUnitUri). */
export function hostUnitUri(host: string, uri: string): string {
  return `${HOST_AUTHORITY}${host}/${uri.slice(SCHEME.length)}`;
}
