/**
 * Value scanners of the redactor: given a line and the index where a secret value starts (just after its
 * label, e.g. after `password=`), each returns the index just past the value, or -1 when there is no value
 * to redact. Every scanner reads each character at most once and at most {@link MAX_VALUE} characters, and
 * the redactor resumes after the value it returned, so redaction stays linear in the text's length.
 * Values are redacted whole: a quoted value ends at its closing quote (escaped quotes included); a value
 * longer than MAX_VALUE is redacted to the end of the line rather than cut.
 */

/** Longest value a scanner looks at; a longer one is redacted to the end of its line. */
export const MAX_VALUE = 4096;

/** Finds where a value starting at `from` ends; -1 when there is none. */
export type Scanner = (line: string, from: number) => number;

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13 || c === 10 || c === 11 || c === 12 || c === 0xa0;

/** Characters that end an unquoted value: whitespace, `&` (query strings), `,` `;` (lists), `<` `>`, quotes. */
function endsUnquoted(c: number): boolean {
  return isSpace(c) || c === 38 /* & */ || c === 44 /* , */ || c === 59 /* ; */ || c === 60 /* < */ || c === 62 /* > */ || c === 34 /* " */ || c === 39 /* ' */;
}

/**
 * A quoted string starting at `from` (which must hold `"` or `'`): ends after the closing quote. A backslash
 * escapes the next character in both kinds (JSON `\"`, shell `\'`); inside single quotes a doubled `''` is a
 * quote (SQL). No closing quote on the line: the rest of the line. -1 when `from` holds no quote.
 */
export const quoted: Scanner = (line, from) => {
  const q = line.charCodeAt(from);
  if (q !== 34 && q !== 39) return -1;
  const stop = Math.min(line.length, from + MAX_VALUE);
  for (let i = from + 1; i < stop; i++) {
    const c = line.charCodeAt(i);
    if (c === 92 /* \ */) { i++; continue; }
    if (c === q) {
      if (q === 39 && line.charCodeAt(i + 1) === 39 && i + 1 < stop) { i++; continue; }
      return i + 1;
    }
  }
  return line.length;
};

/** An unquoted value: up to the first character that ends one (see {@link endsUnquoted}); too long → end of line. */
export const unquoted: Scanner = (line, from) => {
  const stop = Math.min(line.length, from + MAX_VALUE);
  let i = from;
  while (i < stop && !endsUnquoted(line.charCodeAt(i))) i++;
  if (i === stop && stop < line.length) return line.length;
  return i > from ? i : -1;
};

/**
 * A braced value (ODBC connection strings, `Pwd={p/a;ss}`), starting at `from` (which must hold `{`): ends after
 * the closing `}`; a doubled `}}` inside is a literal `}` (the ODBC escape, as in SQL Server's and unixODBC's
 * connection string grammar). No closing brace on the line: the rest of the line. -1 when `from` holds no `{`.
 */
export const braced: Scanner = (line, from) => {
  if (line.charCodeAt(from) !== 123 /* { */) return -1;
  const stop = Math.min(line.length, from + MAX_VALUE);
  for (let i = from + 1; i < stop; i++) {
    if (line.charCodeAt(i) !== 125 /* } */) continue;
    if (line.charCodeAt(i + 1) === 125 && i + 1 < stop) { i++; continue; }
    return i + 1;
  }
  return line.length;
};

/** A quoted value if it starts with a quote, a braced one if it starts with `{`, else an unquoted one. */
export const value: Scanner = (line, from) => {
  const c = line.charCodeAt(from);
  if (c === 123) return braced(line, from);
  return c === 34 || c === 39 ? quoted(line, from) : unquoted(line, from);
};

/** Up to the next whitespace (a command-line argument, a user:password pair). */
export const toSpace: Scanner = (line, from) => {
  const stop = Math.min(line.length, from + MAX_VALUE);
  let i = from;
  while (i < stop && !isSpace(line.charCodeAt(i))) i++;
  if (i === stop && stop < line.length) return line.length;
  return i > from ? i : -1;
};

/** A scanner that extends while `test` holds for each character code. */
export function run(test: (c: number) => boolean): Scanner {
  return (line, from) => {
    const stop = Math.min(line.length, from + MAX_VALUE);
    let i = from;
    while (i < stop && test(line.charCodeAt(i))) i++;
    if (i === stop && stop < line.length) return line.length;
    return i > from ? i : -1;
  };
}

/** Character-class test from a string of single characters and `a-z` ranges, e.g. `"A-Za-z0-9_-"`. */
export function charClass(spec: string): (c: number) => boolean {
  const table = new Uint8Array(128);
  for (let i = 0; i < spec.length; i++) {
    if (spec[i + 1] === "-" && i + 2 < spec.length) {
      for (let c = spec.charCodeAt(i); c <= spec.charCodeAt(i + 2); c++) table[c] = 1;
      i += 2;
    } else {
      table[spec.charCodeAt(i)] = 1;
    }
  }
  return (c) => c < 128 && table[c] === 1;
}

/**
 * The last `@` between `from` and the next `?`, `#`, whitespace or quote (or the end of the line), or -1.
 * Remembered for the line last asked about: a later start inside the same stretch has the same end, and its last
 * `@` is the remembered one when that lies at or after the start (else there is none). So the URLs of one line
 * cost one scan of each stretch in all, not one per URL (bench/redact.ts `url_many_schemes`, `url_no_at`). The
 * stretch is not cut at MAX_VALUE: a password that runs that far is redacted whole (the safe side).
 */
let segLine: string | null = null;
let segFrom = -1;
let segEnd = -1;
let segLastAt = -1;
function lastAtInStretch(line: string, from: number): number {
  if (segLine === line && from >= segFrom && from <= segEnd) return segLastAt >= from ? segLastAt : -1;
  let lastAt = -1;
  let i = from;
  for (; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 63 || c === 35 || endsUrl(c)) break;
    if (c === 64) lastAt = i;
  }
  segLine = line;
  segFrom = from;
  segEnd = i;
  segLastAt = lastAt;
  return lastAt;
}

/** Ends a URL outright: whitespace, a quote, `<` `>`. */
const endsUrl = (c: number): boolean => isSpace(c) || c === 34 || c === 39 || c === 60 || c === 62;

/**
 * The password of a URL's userinfo, starting just after `scheme://`. The authority runs to the first `/`, `?`,
 * `#`, whitespace or quote; the userinfo is the authority up to its LAST `@` (a password may hold a raw `@`,
 * corpus T2-12); the password is the userinfo after its first `:`. A password may also hold a raw `/` (red team,
 * issue 19: `mysql://app:p/ss@db/x`), which ends the authority early: when a `:` comes before the first `/` and
 * what follows it is not a port (digits only), the userinfo runs instead to the last `@` before the next `?`,
 * `#`, whitespace or quote. That can take a path holding an `@` with it (over-redaction, the safe side). Returns
 * the password's [from, to), or null when the URL carries no password. Reads at most {@link MAX_VALUE} characters of
 * the authority; the stretch after a `/` once per line (see lastAtInStretch).
 */
export function urlPassword(line: string, authorityStart: number): { from: number; to: number } | null {
  const stop = Math.min(line.length, authorityStart + MAX_VALUE);
  let end = authorityStart;
  let lastAt = -1;
  let colon = -1;
  for (; end < stop; end++) {
    const c = line.charCodeAt(end);
    if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */ || endsUrl(c)) break;
    if (c === 64 /* @ */) lastAt = end;
    else if (c === 58 /* : */ && colon < 0) colon = end;
  }
  const port = colon >= 0 && lastAt < 0 && /^\d{1,5}$/.test(line.slice(colon + 1, end));
  if (colon >= 0 && !port && line.charCodeAt(end) === 47 && line.charCodeAt(authorityStart) !== 91 /* [ an IPv6 host */) {
    const at = lastAtInStretch(line, end);
    if (at >= end) lastAt = at;
  }
  if (lastAt < 0 || colon < 0 || colon >= lastAt) return null;
  return colon + 1 < lastAt ? { from: colon + 1, to: lastAt } : null;
}

/**
 * The user name sshd logs for an unknown user (`Failed password for invalid user X from H port N`, `Invalid
 * user X from H port N`, `Connection closed by invalid user X H port N [preauth]`): people type their password
 * at the user prompt, so it is a secret. It runs to the host before the last ` port ` within 256 characters
 * (so a typed password holding spaces is redacted whole), else to ` [preauth]`, else to the next space.
 */
export const sshInvalidUser: Scanner = (line, from) => {
  const win = line.slice(from, Math.min(line.length, from + 256));
  let end = -1;
  const port = win.lastIndexOf(" port ");
  if (port > 0) {
    const sp = win.lastIndexOf(" ", port - 1);
    if (sp > 0) end = win.slice(0, sp).endsWith(" from") ? sp - 5 : sp;
  }
  if (end <= 0) {
    const pre = win.indexOf(" [preauth]");
    end = pre > 0 ? pre : toSpace(win, 0);
  }
  return end > 0 ? from + end : -1;
};

/**
 * {@link value}, except for the shell's own `PWD=/dir` and `OLDPWD=/dir` (as `env`, `declare -x` and
 * /proc/PID/environ print them): there the key is exactly `PWD` or `OLDPWD` (upper case, after the start of the
 * line, a space, a quote or a NUL, not after `;` or a letter: `MYSQL_PWD=`, ODBC `…;PWD=…` stay passwords) and the
 * value a path (`/` or `~`, quoted or not), so -1: nothing to redact (red team, issue 19: a false positive).
 */
export const shellDirOrValue: Scanner = (line, from) => {
  const c = line.charCodeAt(from) === 34 || line.charCodeAt(from) === 39 ? line.charCodeAt(from + 1) : line.charCodeAt(from);
  if (c === 47 /* / */ || c === 126 /* ~ */) {
    const key = line.startsWith("OLDPWD=", from - 7) ? from - 7 : line.startsWith("PWD=", from - 4) ? from - 4 : -1;
    const before = key > 0 ? line.charCodeAt(key - 1) : 32;
    if (key >= 0 && (isSpace(before) || before === 0 || before === 34 || before === 39)) return -1;
  }
  return value(line, from);
};

/** The value of base64 digit `c` (a character code), or -1. */
export function b64(c: number): number {
  if (c >= 65 && c <= 90) return c - 65;
  if (c >= 97 && c <= 122) return c - 71;
  if (c >= 48 && c <= 57) return c + 4;
  return c === 43 ? 62 : c === 47 ? 63 : -1;
}

/**
 * A base64 value (quoted or not, at least 8 digits) that decodes to text holding a `:` — `user:password` as Docker's
 * config.json `auths.*.auth` and npm's `_auth` store it (HTTP Basic, RFC 7617). Ends after the value (and its closing
 * quote); -1 for anything else (`auth: required`, `auth=sha256`). Decodes at most {@link MAX_VALUE} characters.
 */
export const basicAuthValue: Scanner = (line, from) => {
  const q = line.charCodeAt(from);
  const quotedValue = q === 34 || q === 39;
  const start = quotedValue ? from + 1 : from;
  const stop = Math.min(line.length, start + MAX_VALUE);
  let i = start;
  let bits = 0;
  let acc = 0;
  let colon = false;
  for (; i < stop; i++) {
    const d = b64(line.charCodeAt(i));
    if (d < 0) break;
    acc = ((acc << 6) | d) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (((acc >> bits) & 255) === 58) colon = true;
    }
  }
  while (i < stop && line.charCodeAt(i) === 61 /* = */) i++;
  if (!colon || i - start < 8) return -1;
  if (quotedValue) return line.charCodeAt(i) === q ? i + 1 : -1;
  return i === line.length || endsUnquoted(line.charCodeAt(i)) ? i : -1;
};

/** `key="…"` / `name='…'` attributes and the `value` attribute of one XML element (bounded by the caller). */
const KEY_ATTR = /\s(?:key|name)\s{0,4}=\s{0,4}(["'])([^"'<>]{0,128})\1/i;
const VALUE_ATTR = /\svalue\s{0,4}=\s{0,4}(?=["'])/i;

/**
 * For an XML element starting at `from` (just after its tag name): when its `key` or `name` attribute names a
 * secret (`isSecretName`, e.g. `DbPassword`, `db.password`), the [from, to) of its `value` attribute's quoted value,
 * in either attribute order (.NET appSettings `<add key="…" value="…"/>`, Ant/Spring `<property name="…" value="…"/>`).
 * The element ends at the next `>` or `<` (at most {@link MAX_VALUE} characters): elements do not overlap, so a
 * line is read about once.
 */
export function xmlKeyedValue(isSecretName: (name: string) => boolean): (line: string, from: number) => { from: number; to: number } | null {
  return (line, from) => {
    const stop = Math.min(line.length, from + MAX_VALUE);
    let end = from;
    while (end < stop && line.charCodeAt(end) !== 62 && line.charCodeAt(end) !== 60) end++;
    const el = line.slice(from, end);
    const k = KEY_ATTR.exec(el);
    if (!k || !isSecretName(k[2]!)) return null;
    const v = VALUE_ATTR.exec(el);
    if (!v) return null;
    const at = from + v.index + v[0].length;
    const to = quoted(line, at);
    return to > at ? { from: at, to } : null;
  };
}
