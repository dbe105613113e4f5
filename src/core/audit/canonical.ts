/**
 * Canonical JSON encoding used for every hashed or signed audit byte string (docs/audit-format.md, "Canonical
 * encoding"). Rules, chosen so that one value has exactly one encoding:
 * - objects: keys sorted by UTF-16 code unit order (JavaScript's default sort, as in RFC 8785), no duplicate keys
 *   (impossible in a JS object), members `"key":value` joined by `,`, no whitespace anywhere;
 * - strings: JSON.stringify escaping (`"`, `\\`, control characters as `\uXXXX` or short escapes; lone surrogates
 *   escaped as `\uDXXX`, so the text is always valid UTF-8 once encoded);
 * - numbers: safe integers only (|n| ≤ 2^53 − 1), written in decimal without exponent; `-0` is written `0`;
 *   fractions, NaN and ±Infinity are rejected, because their text form differs between encoders;
 * - `true`, `false`, `null`, arrays as usual; `undefined`, functions, symbols, bigints and non-plain objects
 *   (Date, Map, class instances, …) are rejected rather than silently dropped;
 * - nesting deeper than {@link MAX_DEPTH} is rejected;
 * - the byte form is the UTF-8 encoding of the resulting text ({@link canonicalBytes}).
 */

/** A value the canonical encoding accepts. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Deepest nesting accepted (arrays and objects), to bound recursion on hostile input. */
export const MAX_DEPTH = 64;

/** Raised when a value has no canonical encoding. `path` is a JSON-pointer-like location such as `/a/0`. */
export class CanonicalEncodingError extends Error {
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`cannot encode ${path === "" ? "value" : path} canonically: ${problem}`);
    this.name = "CanonicalEncodingError";
    this.path = path;
  }
}

/** Encodes `value` as canonical JSON text. Throws {@link CanonicalEncodingError} for values outside the rules. */
export function canonicalJson(value: unknown): string {
  return encode(value, "", 0);
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (the byte form of canonical text). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** UTF-8 bytes of the canonical JSON encoding of `value`. */
export function canonicalBytes(value: unknown): Uint8Array {
  return utf8(canonicalJson(value));
}

function encode(value: unknown, path: string, depth: number): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return JSON.stringify(value);
    case "number":
      if (!Number.isSafeInteger(value)) throw new CanonicalEncodingError(path, `number ${String(value)} is not a safe integer`);
      return value === 0 ? "0" : String(value);
    case "object":
      break;
    default:
      throw new CanonicalEncodingError(path, `${typeof value} is not JSON`);
  }
  if (depth >= MAX_DEPTH) throw new CanonicalEncodingError(path, `nesting deeper than ${MAX_DEPTH}`);
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new CanonicalEncodingError(`${path}/${i}`, "sparse array hole");
      parts.push(encode(value[i], `${path}/${i}`, depth + 1));
    }
    return `[${parts.join(",")}]`;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) throw new CanonicalEncodingError(path, "not a plain object");
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const parts: string[] = [];
  for (const key of keys) parts.push(`${JSON.stringify(key)}:${encode(record[key], `${path}/${key}`, depth + 1)}`);
  return `{${parts.join(",")}}`;
}
