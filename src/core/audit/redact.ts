import type { JsonValue } from "./canonical.ts";

/**
 * Redaction applied to every payload (and actor) before it is encoded, hashed and signed, so secrets never
 * reach the audit log (issue 5: "receipts, tokens and configured secret patterns are redacted before signing").
 * A redacted string becomes {@link REDACTED}. Redaction is deliberately lossy and one-way.
 */

/** The text that replaces a secret. */
export const REDACTED = "[REDACTED]";

/**
 * Object keys whose values are always secrets, whatever their content: receipts (the single-use approval
 * secret), confirm and bearer tokens, passwords, private keys, API keys, cookies, authorization headers.
 * Matched case-insensitively against the whole key; `*_token`, `*_secret`, `*_password` suffixes included.
 */
export const SECRET_KEY_PATTERN =
  /^(receipt|receipts|token|tokens|secret|secrets|password|passwd|passphrase|private_key|privatekey|api_key|apikey|authorization|cookie|set_cookie|credentials?|[a-z0-9_]*_(token|secret|password|receipt))$/i;

/**
 * Value patterns redacted wherever they occur inside any string: PEM private key blocks, `Bearer …`
 * credentials, and `key=value` pairs whose key names a secret (as in command lines and URLs).
 */
export const BUILTIN_SECRET_PATTERNS: readonly RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi,
  /\b(password|passwd|token|secret|api_key|apikey|receipt)=[^\s&;]+/gi,
];

/** Redaction settings: extra value patterns from configuration (e.g. the receipt format), applied with the built-ins. */
export interface RedactionRules {
  patterns: readonly RegExp[];
}

/** Built-ins plus `extra` (each made global so every occurrence is replaced). */
export function redactionRules(extra: readonly (RegExp | string)[] = []): RedactionRules {
  const patterns = [...BUILTIN_SECRET_PATTERNS];
  for (const p of extra) {
    const re = typeof p === "string" ? new RegExp(p, "g") : p;
    patterns.push(re.global ? re : new RegExp(re.source, `${re.flags}g`));
  }
  return { patterns };
}

/** Replaces every match of every pattern in `text` with {@link REDACTED}. */
export function redactString(text: string, rules: RedactionRules): string {
  let out = text;
  for (const re of rules.patterns) {
    re.lastIndex = 0;
    out = out.replace(re, REDACTED);
  }
  return out;
}

/**
 * Returns a redacted deep copy of `value`: values under secret keys ({@link SECRET_KEY_PATTERN}) become
 * {@link REDACTED} (null stays null), and every string is passed through {@link redactString}. Keys themselves
 * are kept. The input is not modified.
 */
export function redactValue(value: JsonValue, rules: RedactionRules): JsonValue {
  if (typeof value === "string") return redactString(value, rules);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, rules));
  const out: Record<string, JsonValue> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = SECRET_KEY_PATTERN.test(key) && v !== null ? REDACTED : redactValue(v, rules);
  }
  return out;
}
