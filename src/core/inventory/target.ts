import { HostgateError } from "../errors.ts";
import { parseInetAton } from "./address.ts";

/**
 * SSH target validation, done before anything dials (corpus cases S001, S002, S004, S005, S018). A host is a
 * DNS name (labels of letters, digits, `-`, `_`, none starting with `-`), an IPv4 literal, or an IPv6 literal
 * (bare or in brackets). A user is a POSIX-ish login name. Nothing else: no leading `-` (ssh would read an
 * option: `-oProxyCommand=…`), no whitespace, no `$ \` ; | & < > ( ) { } ' " *` and no control characters
 * (OpenSSH < 9.6 expanded them from `%h` into ProxyCommand, CVE-2023-51385). Numeric IPv4 spellings that
 * `inet_aton` accepts (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`) come back as the dotted quad they
 * dial (address.ts), so nothing after validation sees another spelling of the address.
 */

const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})$/;
const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9A-Fa-f:.]+(?:%[A-Za-z0-9_.-]+)?$/;
const USER = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}\$?$/;

function refuse(what: string, value: string, why: string): never {
  throw new HostgateError("invalid_target", `${what} ${JSON.stringify(value.slice(0, 120))} is refused: ${why}`, {
    hint: "Use a plain host name, an IPv4 address or an IPv6 literal (and a plain user name); pick the host from search_hosts.",
    details: { field: what, reason: why },
  });
}

/**
 * Throws `invalid_target` unless `host` is a host name, IPv4 or IPv6 literal (brackets allowed and removed).
 * Returns the bare host; a numeric IPv4 form (any spelling inet_aton accepts) as its dotted quad.
 */
export function validateSshHost(host: string, field = "host"): string {
  if (host.length === 0) refuse(field, host, "it is empty");
  if (host.length > 253 + 2) refuse(field, host, "it is longer than a DNS name can be");
  if (/[\x00-\x1f\x7f]/.test(host)) refuse(field, host, "it contains control characters");
  if (/\s/.test(host)) refuse(field, host, "it contains whitespace");
  let bare = host;
  if (bare.startsWith("[")) {
    if (!bare.endsWith("]")) refuse(field, host, "an opening bracket must close at the end (no ':port' or ':path' suffix here)");
    bare = bare.slice(1, -1);
    if (!bare.includes(":")) refuse(field, host, "brackets are only for IPv6 literals");
  }
  if (bare.startsWith("-")) refuse(field, host, "a leading '-' would be read by ssh as an option");
  if (bare.includes(":")) {
    if (!IPV6.test(bare) || !/^[0-9A-Fa-f]*:/.test(bare)) refuse(field, host, "it is neither a host name nor an IPv6 literal");
    return bare;
  }
  if (IPV4.test(bare)) return bare;
  const numeric = parseInetAton(bare);
  if (numeric) return numeric;
  const name = bare.endsWith(".") ? bare.slice(0, -1) : bare;
  const labels = name.split(".");
  if (labels.some((l) => !LABEL.test(l))) refuse(field, host, "host names hold only letters, digits, '-', '_' and '.' (no shell metacharacters)");
  if (/^\d+$/.test(labels[labels.length - 1]!)) refuse(field, host, "it looks like an IPv4 address but is not one");
  return bare;
}

/** Throws `invalid_target` unless `user` is a plain login name (no leading `-`, no metacharacters). */
export function validateSshUser(user: string, field = "user"): string {
  if (!USER.test(user)) refuse(field, user, user.startsWith("-") ? "a leading '-' would be read by ssh as an option" : "user names hold only letters, digits, '_', '.', '-'");
  return user;
}

/** Throws `invalid_target` unless `port` is an integer 1–65535. */
export function validateSshPort(port: number, field = "port"): number {
  if (!Number.isInteger(port) || port < 1 || port > 65535) refuse(field, String(port), "ports are integers from 1 to 65535");
  return port;
}

/**
 * Quotes one argument for the remote POSIX shell: SSH sends a single command string that the remote login
 * shell parses (corpus S019). Words made only of safe characters stay as they are; anything else is wrapped in
 * single quotes with embedded quotes written as `'\''` (inside single quotes a POSIX shell expands nothing:
 * `$()`, backticks, `\`, newlines and leading dashes all arrive as they are). Throws `invalid_params` for what no
 * argv can carry: a NUL (C strings end there, so the remote program would see a shorter argument) or a lone
 * UTF-16 surrogate (no UTF-8 encoding exists: it would arrive as U+FFFD, another string than the one checked).
 */
export function shellQuote(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_./:=@%+,-]+$/.test(arg)) return arg;
  if (arg.includes("\0")) {
    throw new HostgateError("invalid_params", `An argument for the remote shell contains a NUL byte: ${JSON.stringify(arg.slice(0, 60))}.`, {
      hint: "Remove the NUL character: a command-line argument ends at the first NUL, so it cannot be passed on.",
    });
  }
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(arg)) {
    throw new HostgateError("invalid_params", "An argument for the remote shell contains a lone UTF-16 surrogate, which has no UTF-8 form.", {
      hint: "Send valid Unicode text (JSON escapes \\uD800-\\uDFFF must come in pairs).",
    });
  }
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Joins an argv into one command string for the remote shell, each element quoted by `shellQuote` (same errors). */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(" ");
}
