/**
 * The multi-line rule of the redactor: private key blocks (PEM, OpenSSH, PGP), which span lines. Works on a
 * list of lines and returns spans; one pass, each line searched once (linear). Sources: RFC 7468 (PEM
 * labels), OpenSSH and OpenPGP armor headers.
 */

const BEGIN = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
const END = /-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/g;
/** A base64 body line of any length (the last line before END is as short as the key leaves it, e.g. `AB==`). */
const BODY_ANY = /^[A-Za-z0-9+/]{1,100}={0,2}$/;
/** A body line of the length PEM/OpenSSH writers use, with a character hex text lacks (a SHA-256 is not a key line). */
const BODY_FULL = /^[A-Za-z0-9+/]{60,76}={0,2}$/;
const NOT_HEX = /[g-zG-Z+/]/;
/** Runs of this many full body lines are redacted wherever they stand (a key whose armor was cut away). */
const RUN_ANYWHERE = 4;

/** A redacted stretch: from (line, col) to (line, col), end exclusive. */
export interface Span {
  fromLine: number;
  fromCol: number;
  toLine: number;
  toCol: number;
}

function isFullBody(line: string): boolean {
  const t = line.trim();
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
      // An END without its BEGIN: the body lines above it belong to the key.
      let k = line;
      while (k - 1 >= 0 && covered[k - 1] === 0 && (k === line ? BODY_ANY : BODY_FULL).test(lines[k - 1]!.trim()) && lines[k - 1]!.trim() !== "") k--;
      mark({ fromLine: k, fromCol: 0, toLine: line, toCol: e.index + e[0].length });
      col = e.index + e[0].length;
      continue;
    }
    line++;
    col = 0;
  }
  // Key-shaped runs outside any block.
  for (let i = 0; i < lines.length; ) {
    if (covered[i] === 1 || !isFullBody(lines[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && covered[j] === 0 && isFullBody(lines[j]!)) j++;
    // A run cut by the window's edge: the short last line of a key may follow it.
    if (j === lines.length - 1 && covered[j] === 0 && window && BODY_ANY.test(lines[j]!.trim()) && lines[j]!.trim().endsWith("=")) j++;
    const atEdge = window && (i === 0 || j === lines.length);
    if (j - i >= RUN_ANYWHERE || atEdge) mark({ fromLine: i, fromCol: 0, toLine: j - 1, toCol: lines[j - 1]!.length });
    i = j;
  }
  return spans;
}
