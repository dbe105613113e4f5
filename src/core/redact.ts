/**
 * Secret redaction applied to every string a read-only action returns (DESIGN.md: "a read-only tool never
 * returns secrets (private keys, /etc/shadow, tokens)"). Patterns are deliberately broad; a false redaction
 * costs a little context, a missed one leaks a credential.
 */
/** `keep`: the first capture group is a label (e.g. `password=`) kept before the redaction marker. */
const PATTERNS: readonly { name: string; re: RegExp; keep?: true }[] = [
  { name: "private_key", re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g },
  { name: "ssh_private_key", re: /-----BEGIN OPENSSH PRIVATE KEY-----[\s\S]*?(?:-----END OPENSSH PRIVATE KEY-----|$)/g },
  { name: "shadow_hash", re: /\$(?:1|2[abxy]?|5|6|y|gy|7)\$[^\s:$]{0,64}\$[./A-Za-z0-9]{16,}/g },
  { name: "aws_access_key", re: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: "github_token", re: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g },
  { name: "bearer_token", re: /\b(Bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi , keep: true },
  { name: "credential_assignment", re: /((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;,'"]+)/gi , keep: true },
  { name: "credential_flag", re: /(--(?:password|passwd|secret|token|api-key)(?:=|\s+))(\S+)/gi , keep: true },
];

/** Returns the text with secrets replaced by `[redacted:<kind>]`, and how many replacements were made. */
export function redactSecrets(text: string): { text: string; redactions: number } {
  let redactions = 0;
  let out = text;
  for (const { name, re, keep } of PATTERNS) {
    out = out.replace(re, (_match: string, label: unknown) => {
      redactions++;
      return `${keep && typeof label === "string" ? label : ""}[redacted:${name}]`;
    });
  }
  return { text: out, redactions };
}

/** Applies {@link redactSecrets} to every string inside a JSON-like value; returns a new value and the count. */
export function redactDeep<T>(value: T): { value: T; redactions: number } {
  let total = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const r = redactSecrets(v);
      total += r.redactions;
      return r.text;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return { value: walk(value) as T, redactions: total };
}
