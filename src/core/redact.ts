import { findKeySpans } from "./redact/private-keys.ts";
import { LINE_RULES, type Rule } from "./redact/rules.ts";

/**
 * The one redactor of hostgate: every answer of a read-only action, every preview the model sees, every audit
 * payload and actor goes through it before it leaves the daemon or is signed (DESIGN.md: "a read-only tool
 * never returns secrets"). A secret becomes `[redacted:<kind>]`; labels stay (`password=[redacted:…]`).
 *
 * - Values are redacted whole: a quoted value to its closing quote (escaped quotes included), a URL password to
 *   the last `@` of the authority, a token over all of its characters (rules.ts, scan.ts).
 * - Linear time: every pattern is bounded, every value scanner reads a character once and the search resumes
 *   after the value, the multi-line rule (private keys) searches each line once; text is processed line by
 *   line, so a long line costs what the same bytes cost as short lines (bench/redact.ts).
 * - Idempotent: an already redacted value is left alone.
 * Patterns are deliberately broad: a false redaction costs a little context, a missed one leaks a credential.
 */

/** What replaces a secret of kind `kind`. */
export function marker(kind: string): string {
  return `[redacted:${kind}]`;
}

const MARK = "[redacted:";

/** Options: extra patterns from configuration (`audit.secret_patterns`), applied as whole-match rules. */
export interface RedactOptions {
  extra?: readonly RegExp[];
}

/** Compiles configured pattern strings (or RegExps) into global RegExps; throws SyntaxError on a bad one. */
export function compileExtraPatterns(patterns: readonly (RegExp | string)[]): RegExp[] {
  return patterns.map((p) => {
    const re = typeof p === "string" ? new RegExp(p, "g") : p;
    return re.global ? re : new RegExp(re.source, `${re.flags}g`);
  });
}

/** Applies one rule to one line; `count.n` is incremented per redaction. */
function applyRule(line: string, rule: Rule, count: { n: number }): string {
  const re = rule.re;
  re.lastIndex = 0;
  let out = "";
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line)) !== null) {
    let from: number;
    let to: number;
    if (rule.kind === "token") {
      from = m.index;
      to = m.index + m[0].length;
      if (rule.extend) to = Math.max(to, rule.extend(line, to));
    } else if (rule.kind === "label") {
      from = m.index + m[0].length;
      to = rule.scan(line, from);
    } else {
      const found = rule.locate(line, m.index + m[0].length);
      from = found?.from ?? -1;
      to = found?.to ?? -1;
    }
    const already = from >= 0 && (line.startsWith(MARK, from) || line.startsWith(MARK, from + 1));
    if (to > from && from >= last && !already) {
      out += line.slice(last, from) + marker(rule.name);
      last = to;
      count.n++;
    }
    re.lastIndex = Math.max(m.index + Math.max(1, m[0].length), to);
  }
  return last === 0 ? line : out + line.slice(last);
}

/** Redacts one line (no newline inside) with every single-line rule, then the configured extras. */
function redactLine(line: string, count: { n: number }, extra: readonly RegExp[]): string {
  let out = line;
  for (const rule of LINE_RULES) out = applyRule(out, rule, count);
  for (const re of extra) out = applyRule(out, { name: "configured", kind: "token", re }, count);
  return out;
}

/**
 * Redacts secrets in a text: private key blocks across lines (one marker per block, text around it kept),
 * then every line. Returns the text and how many secrets were replaced.
 */
export function redactSecrets(text: string, opts: RedactOptions = {}): { text: string; redactions: number } {
  const plain = opts.extra === undefined || opts.extra.length === 0;
  if (plain && isKnownClean(text)) return { text, redactions: 0 };
  const r = redactText(text, opts);
  if (plain && r.redactions === 0) rememberClean(text);
  return r;
}

/**
 * Texts that a full redaction (built-in rules, no configured extras) left unchanged. Redaction is a function of
 * the text alone, so the same text is clean again: it is answered from here without running the rules. Process
 * tables, unit lists and the like repeat the same strings on every call. Only texts found free of secrets are
 * stored, each of at most {@link CLEAN_MAX_CHARS} characters, as a flat copy (a substring may keep its whole
 * parent text alive); all of them hold at most {@link CLEAN_BUDGET_CHARS} characters (≤ 1 MiB of UTF-16) in at
 * most {@link CLEAN_MAX_ENTRIES} entries. When full it starts over.
 */
const clean = new Set<string>();
const CLEAN_MAX_CHARS = 4096;
const CLEAN_BUDGET_CHARS = 512 * 1024;
const CLEAN_MAX_ENTRIES = 8192;
let cleanChars = 0;

/** A copy of `text` that shares no storage with it (a substring keeps its parent alive while it is held). */
function flatCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

function isKnownClean(text: string): boolean {
  return text.length <= CLEAN_MAX_CHARS && clean.has(text);
}

function rememberClean(text: string): void {
  if (text.length > CLEAN_MAX_CHARS) return;
  if (cleanChars + text.length > CLEAN_BUDGET_CHARS || clean.size >= CLEAN_MAX_ENTRIES) {
    clean.clear();
    cleanChars = 0;
  }
  clean.add(flatCopy(text));
  cleanChars += text.length;
}

/** {@link redactSecrets} without the clean-text memo. */
function redactText(text: string, opts: RedactOptions): { text: string; redactions: number } {
  const count = { n: 0 };
  const lines = text.split("\n");
  const spans = findKeySpans(lines, false);
  let joined = text;
  if (spans.length > 0) {
    // Rebuild the text with each span replaced by one marker (spans are in order and do not overlap).
    const starts = [0];
    for (let i = 0; i < lines.length - 1; i++) starts.push(starts[i]! + lines[i]!.length + 1);
    let out = "";
    let last = 0;
    for (const s of spans) {
      const from = starts[s.fromLine]! + s.fromCol;
      const to = starts[s.toLine]! + s.toCol;
      if (from < last) continue;
      out += text.slice(last, from) + marker("private_key");
      last = to;
      count.n++;
    }
    joined = out + text.slice(last);
  }
  const out = (spans.length > 0 ? joined.split("\n") : lines).map((l) => redactLine(l, count, opts.extra ?? []));
  return { text: out.join("\n"), redactions: count.n };
}

/**
 * Redacts a list of lines that is a window of a longer text (a log tail): private keys whose lines are split
 * over several elements (every line of a block becomes a marker, also a key cut by the window's edge), then
 * every line on its own. Used before any filter runs on the window, so a filter only ever sees redacted text.
 * `per_line[i]` is how many secrets were replaced in line i (a caller that returns only some lines counts those).
 */
export function redactLines(lines: readonly string[], opts: RedactOptions = {}): { lines: string[]; redactions: number; per_line: number[] } {
  const per_line = lines.map(() => 0);
  const out = [...lines];
  for (const s of findKeySpans(lines, true)) {
    for (let i = s.fromLine; i <= s.toLine; i++) {
      if (out[i] === marker("private_key")) continue;
      out[i] = marker("private_key");
      per_line[i]!++;
    }
  }
  for (let i = 0; i < out.length; i++) {
    const r = redactSecrets(out[i]!, opts);
    out[i] = r.text;
    per_line[i]! += r.redactions;
  }
  return { lines: out, redactions: per_line.reduce((a, b) => a + b, 0), per_line };
}

/**
 * Object keys whose values are secrets whatever their content: receipts, tokens, passwords, private keys, API
 * keys, cookies, authorization headers, credentials; `*_token`, `*_secret`, `*_password` suffixes included.
 * Matched case-insensitively against the whole key.
 */
export const SECRET_KEY_PATTERN =
  /^(receipt|receipts|approval_receipt|token|tokens|secret|secrets|password|passwd|passphrase|private_key|privatekey|api_key|apikey|authorization|cookie|set_cookie|credentials?|[a-z0-9_]*_(token|secret|password|receipt))$/i;

/**
 * {@link SECRET_KEY_PATTERN}'s answers for the keys seen: keys repeat (most come from schemas). At most 1,024 keys of
 * at most 128 characters are kept, as flat copies; when full it starts over.
 */
const secretKeys = new Map<string, boolean>();

function isSecretKey(key: string): boolean {
  let known = secretKeys.get(key);
  if (known === undefined) {
    known = SECRET_KEY_PATTERN.test(key);
    if (secretKeys.size >= 1024) secretKeys.clear();
    if (key.length <= 128) secretKeys.set(flatCopy(key), known);
  }
  return known;
}

/**
 * Returns a redacted deep copy of a JSON-like value: values under secret keys ({@link SECRET_KEY_PATTERN},
 * not null) become a marker, lists of strings go through {@link redactLines} (keys split over elements), every
 * other string through {@link redactSecrets}. Keys are kept; the input is not modified.
 */
export function redactDeep<T>(value: T, opts: RedactOptions = {}): { value: T; redactions: number } {
  let total = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const r = redactSecrets(v, opts);
      total += r.redactions;
      return r.text;
    }
    if (Array.isArray(v)) {
      if (v.length > 0 && v.every((x) => typeof x === "string")) {
        const r = redactLines(v, opts);
        total += r.redactions;
        return r.lines;
      }
      return v.map(walk);
    }
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) {
        const x = (v as Record<string, unknown>)[k];
        let y: unknown;
        if (x !== null && isSecretKey(k) && !(typeof x === "string" && x.startsWith(MARK))) {
          total++;
          y = marker("secret_field");
        } else {
          y = walk(x);
        }
        // A plain assignment to "__proto__" would set the copy's prototype instead of a key.
        if (k === "__proto__") Object.defineProperty(out, k, { value: y, enumerable: true, writable: true, configurable: true });
        else out[k] = y;
      }
      return out;
    }
    return v;
  };
  return { value: walk(value) as T, redactions: total };
}
