/**
 * The multi-line rule of the redactor: private key blocks (PEM, OpenSSH, PGP, OpenVPN static keys), which span
 * lines. Works on a list of lines and returns spans in text order; three passes down the lines (armor, key heads
 * whose armor is not in view, key-shaped runs), each line searched once a pass (linear). Sources: RFC 7468
 * (PEM labels), OpenSSH and OpenPGP armor headers, OpenVPN's `--secret` static key file.
 */

import { b64 } from "./scan.ts";

const BEGIN = /-----BEGIN (?:[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?|OpenVPN Static key V1)-----/g;
const END = /-----END (?:[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?|OpenVPN Static key V1)-----/g;
/** A base64 body line of any length (the last line before END is as short as the key leaves it, e.g. `AB==`). */
const BODY_ANY = /^[A-Za-z0-9+/]{1,100}={0,2}$/;
/** A body line of the length PEM/OpenSSH writers use, with a character hex text lacks (a SHA-256 is not a key line). */
const BODY_FULL = /^[A-Za-z0-9+/]{60,76}={0,2}$/;
const NOT_HEX = /[g-zG-Z+/]/;
/**
 * Runs of this many full body lines are redacted wherever they stand (a key whose armor was cut away: `sed -n
 * 3,4p key.pem`). Two lines of 60-76 base64 characters with no space are binary data in any text; a certificate's
 * body goes too (over-redaction, the safe side: a "certificate" armor around a key's lines must not hide them).
 */
const RUN_ANYWHERE = 2;
/** A whole line of base64 (a key's body joined into one line: `tail -n +2 key.pem | tr -d '\n'`). */
const BASE64_LINE = /^[A-Za-z0-9+/]+={0,2}$/;

/** OpenSSH's private key format starts with the magic "openssh-key-v1\0" (PROTOCOL.key), in base64 this. */
const OPENSSH_MAGIC = "b3BlbnNzaC1rZXktdjE";

/**
 * True when the base64 text at `at` of `text` begins a private key's DER or OpenSSH encoding, i.e. the first body
 * line of a key whose BEGIN line is not in view (`tail -n +2 key.pem`, `cat -n key.pem`). DER (X.690): a SEQUENCE
 * whose first element is the INTEGER version 0, 1 or 3 followed by a SEQUENCE, INTEGER or OCTET STRING: PKCS#8
 * PrivateKeyInfo / OneAsymmetricKey (RFC 5208, 5958: version 0 or 1, then the algorithm SEQUENCE), PKCS#1
 * RSAPrivateKey (RFC 8017: version 0, then the modulus INTEGER), SEC1 ECPrivateKey (RFC 5915: version 1, then the
 * key OCTET STRING), PKCS#12 PFX (RFC 7292: version 3). Certificates, public keys (SPKI), CSRs and DH parameters
 * start with a SEQUENCE inside the SEQUENCE or a long INTEGER, so they are not heads. Reads 16 characters.
 */
export function isKeyHead(text: string, at: number): boolean {
  if (text.startsWith(OPENSSH_MAGIC, at)) return true;
  if (text.charCodeAt(at) !== 77 /* M */) return false;
  const bytes: number[] = [];
  for (let i = 0; i < 16; i += 4) {
    let v = 0;
    for (let j = 0; j < 4; j++) {
      const d = b64(text.charCodeAt(at + i + j));
      if (d < 0) return false;
      v = (v << 6) | d;
    }
    bytes.push((v >> 16) & 255, (v >> 8) & 255, v & 255);
  }
  if (bytes[0] !== 0x30) return false;
  const len = bytes[1]!;
  const off = len < 0x80 ? 2 : len >= 0x81 && len <= 0x83 ? 3 + (len - 0x81) : -1;
  if (off < 0) return false;
  const version = bytes[off + 2]!;
  const next = bytes[off + 3]!;
  return bytes[off] === 0x02 && bytes[off + 1] === 0x01 && (version === 0 || version === 1 || version === 3) && (next === 0x30 || next === 0x02 || next === 0x04);
}

/** A redacted stretch: from (line, col) to (line, col), end exclusive. */
export interface Span {
  fromLine: number;
  fromCol: number;
  toLine: number;
  toCol: number;
}

/** A base64 digit or its `=` padding (a character code). */
function b64OrPad(c: number): boolean {
  return c === 61 || b64(c) >= 0;
}

/** True when the first non-blank character of `line` is `M` or `b` (what a key head starts with: isKeyHead). */
function startsLikeHead(line: string): boolean {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i++;
  const c = line.charCodeAt(i);
  return c === 77 || c === 98;
}

/** A key's short last body line: padded (`AB==`), or at least 16 base64 characters (a word such as `done` is not). */
function isShortLast(line: string): boolean {
  const t = bodyText(line);
  return BODY_ANY.test(t) && (t.endsWith("=") || t.length >= 16);
}

/** A line's text without surrounding blanks and without the line number `cat -n` and `nl` put before it. */
function bodyText(line: string): string {
  const t = line.trim();
  const c = t.charCodeAt(0);
  return c >= 48 && c <= 57 ? t.replace(/^\d{1,9}\t\s*/, "") : t;
}

function isFullBody(line: string): boolean {
  const t = bodyText(line);
  return t.length <= 80 && BODY_FULL.test(t) && NOT_HEX.test(t);
}

/**
 * Finds private key material in `lines`: every BEGIN … END block (an unterminated one runs to the end), the
 * body lines before an END whose BEGIN is not in the list, and runs of key-shaped body lines. With `window`
 * (a log tail: the list is a cut from a longer file) a run of key-shaped lines touching the first or the
 * last line is also a key cut by the window's edge.
 */
export function findKeySpans(lines: readonly string[], window: boolean): Span[] {
  const spans: Span[] = [];
  let line = 0;
  let col = 0;
  const covered = new Uint8Array(lines.length);
  const mark = (s: Span): void => {
    spans.push(s);
    for (let i = s.fromLine; i <= s.toLine && i < lines.length; i++) covered[i] = 1;
  };
  // The next BEGIN and END at or after `col` on `line`, cached so a line is searched once per marker kind.
  let cachedLine = -1;
  let b: RegExpExecArray | null = null;
  let e: RegExpExecArray | null = null;
  const next = (re: RegExp, prev: RegExpExecArray | null, text: string): RegExpExecArray | null => {
    if (cachedLine === line && (prev === null || prev.index >= col)) return prev;
    re.lastIndex = col;
    return re.exec(text);
  };
  while (line < lines.length) {
    const text = lines[line]!;
    b = next(BEGIN, b, text);
    e = next(END, e, text);
    cachedLine = line;
    if (b !== null && (e === null || b.index < e.index)) {
      // A block: find its END from just after BEGIN, across lines.
      let l = line;
      let c = b.index + b[0].length;
      let end: Span | null = null;
      while (l < lines.length) {
        END.lastIndex = c;
        const m = END.exec(lines[l]!);
        if (m !== null) {
          end = { fromLine: line, fromCol: b.index, toLine: l, toCol: m.index + m[0].length };
          break;
        }
        l++;
        c = 0;
      }
      end ??= { fromLine: line, fromCol: b.index, toLine: lines.length - 1, toCol: lines[lines.length - 1]!.length };
      mark(end);
      line = end.toLine;
      col = end.toCol;
      continue;
    }
    if (e !== null) {
      // An END without its BEGIN: the body lines above it belong to the key, and so does a body joined onto the
      // END's own line (`tail -n +2 key.pem | tr -d '\n'`): the base64 run just before END on that line.
      let k = line;
      while (k - 1 >= 0 && covered[k - 1] === 0 && (k === line ? BODY_ANY : BODY_FULL).test(lines[k - 1]!.trim()) && lines[k - 1]!.trim() !== "") k--;
      let fromCol = 0;
      if (k === line) {
        fromCol = e.index;
        while (fromCol > col && b64OrPad(text.charCodeAt(fromCol - 1))) fromCol--;
      }
      mark({ fromLine: k, fromCol, toLine: line, toCol: e.index + e[0].length });
      col = e.index + e[0].length;
      continue;
    }
    line++;
    col = 0;
  }
  // A key's first body line (its DER or OpenSSH head) whose BEGIN is not in view, with the body lines after it.
  for (let i = 0; i < lines.length; i++) {
    if (covered[i] === 1 || !startsLikeHead(lines[i]!)) continue;
    const t = lines[i]!.trim();
    if (t.length < 40 || !BASE64_LINE.test(t) || !isKeyHead(t, 0)) continue;
    let j = i + 1;
    while (j < lines.length && covered[j] === 0 && isFullBody(lines[j]!)) j++;
    if (j < lines.length && covered[j] === 0 && isShortLast(lines[j]!)) j++;
    mark({ fromLine: i, fromCol: 0, toLine: j - 1, toCol: lines[j - 1]!.length });
    i = j - 1;
  }
  // Key-shaped runs outside any block.
  for (let i = 0; i < lines.length; ) {
    if (covered[i] === 1 || !isFullBody(lines[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && covered[j] === 0 && isFullBody(lines[j]!)) j++;
    // The short last line of a key may follow the run (anywhere; at a window's edge even a short unpadded one).
    if (j < lines.length && covered[j] === 0 && (isShortLast(lines[j]!) || (window && j === lines.length - 1 && BODY_ANY.test(bodyText(lines[j]!)) && lines[j]!.trim().endsWith("=")))) j++;
    const atEdge = window && (i === 0 || j === lines.length);
    if (j - i >= RUN_ANYWHERE || atEdge) mark({ fromLine: i, fromCol: 0, toLine: j - 1, toCol: lines[j - 1]!.length });
    i = j;
  }
  // The passes above each go down the lines: put their spans in text order (they do not overlap).
  return spans.sort((x, y) => x.fromLine - y.fromLine || x.fromCol - y.fromCol);
}
