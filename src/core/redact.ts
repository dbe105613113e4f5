/**
 * Secret redaction applied to every string a read-only action returns (DESIGN.md: "a read-only tool never
 * returns secrets (private keys, /etc/shadow, tokens)"). Patterns are deliberately broad; a false redaction
 * costs a little context, a missed one leaks a credential.
 */
/** `keep`: the first capture group is a label (e.g. `password=`) kept before the redaction marker. */
const PATTERNS: readonly { name: string; re: RegExp; keep?: true }[] = [
  { name: "private_key", re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  // crypt(5): `$id$salt$hash`, also `$5$/$6$rounds=N$salt$hash` and yescrypt `$y$params$salt$hash`
  { name: "shadow_hash", re: /\$(?:1|2[abxy]?|5|6|y|gy|7|apr1|pbkdf2[-_a-z0-9]*)\$(?:[^\s:$]{0,64}\$){1,3}[./A-Za-z0-9+=]{16,}/g },
  { name: "argon2_hash", re: /\$argon2(?:id|i|d)\$[^\s:]+/g },
  { name: "url_credentials", re: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+(?=@)/gi, keep: true },
  { name: "slack_token", re: /\bxox[abposr]-[A-Za-z0-9-]{10,}|\bxapp-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]+/g },
  { name: "api_key", re: /\b(?:sk_live_|sk_test_|rk_live_|glpat-|npm_)[A-Za-z0-9_-]{16,}|\bsk-[A-Za-z0-9_-]{20,}|\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: "jwt", re: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // mysql/mariadb `-pSECRET` (no space). Values without a letter (ports, pids: ssh -p2222, ps -p1) are kept.
  { name: "mysql_password_flag", re: /((?:^|\s)-p)(?=\S*[A-Za-z])(\S{3,})(?=\s|$)/g, keep: true },
  { name: "sshpass", re: /(\bsshpass\s+-p\s*)(\S+)/g, keep: true },
  { name: "user_password_flag", re: /((?:^|\s)(?:-u|--user)\s+[^\s:]+:)(\S+)/g, keep: true },
  { name: "aws_access_key", re: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: "github_token", re: /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g },
  { name: "bearer_token", re: /\b((?:Bearer|Basic)\s+)[A-Za-z0-9._~+/-]{12,}=*/gi, keep: true },
  { name: "xml_secret", re: /(<(?:password|passwd|secret|token|passphrase)>)[^<]*/gi, keep: true },
  { name: "credential_assignment", re: /(["']?(?:password|passwd|pwd|pass|passphrase|secret|token|api[_-]?key|access[_-]?key|[A-Za-z0-9]+_(?:pass|password|secret|token|key))["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&;,'"]+)/gi, keep: true },
  { name: "credential_flag", re: /(--(?:password|passwd|secret|token|api-key)(?:=|\s+))(\S+)/gi, keep: true },
];

/** Returns the text with secrets replaced by `[redacted:<kind>]`, and how many replacements were made. */
export function redactSecrets(text: string): { text: string; redactions: number } {
  let redactions = 0;
  let out = text;
  for (const { name, re, keep } of PATTERNS) {
    out = out.replace(re, (match: string, label: unknown) => {
      const prefix = keep && typeof label === "string" ? label : "";
      // Already redacted (a second pass): leave it, so redaction is idempotent.
      if (match.slice(prefix.length).replace(/^["']/, "").startsWith("[redacted:")) return match;
      redactions++;
      return `${prefix}[redacted:${name}]`;
    });
  }
  return { text: out, redactions };
}

const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const KEY_BODY = /^[A-Za-z0-9+/=]{16,}$/;
/** The last base64 line before END is as short as the key's length leaves it (e.g. `AAAB==`). */
const KEY_LAST_BODY = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Redacts private keys that span several elements of a list of lines (a log tail splits a PEM block into
 * one string per line): everything from a BEGIN line to its END line, and the base64 body lines before an
 * END line whose BEGIN fell outside the tail. Returns the new list and the count of redacted lines.
 */
export function redactLines(lines: readonly string[]): { lines: string[]; redactions: number } {
  const out = [...lines];
  let redactions = 0;
  const blank = (i: number): void => { out[i] = "[redacted:private_key]"; redactions++; };
  for (let i = 0; i < out.length; i++) {
    if (KEY_BEGIN.test(out[i]!)) {
      let j = i;
      while (j < out.length && !KEY_END.test(out[j]!)) j++;
      for (let k = i; k <= Math.min(j, out.length - 1); k++) blank(k);
      i = j;
    } else if (KEY_END.test(out[i]!)) {
      for (let k = i - 1; k >= 0 && (k === i - 1 ? KEY_LAST_BODY : KEY_BODY).test(out[k]!.trim()); k--) blank(k);
      blank(i);
    }
  }
  return { lines: out, redactions };
}

/**
 * Applies {@link redactSecrets} to every string inside a JSON-like value, and {@link redactLines} to every
 * list of strings first; returns a new value and the count.
 */
export function redactDeep<T>(value: T): { value: T; redactions: number } {
  let total = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const r = redactSecrets(v);
      total += r.redactions;
      return r.text;
    }
    if (Array.isArray(v)) {
      if (v.length > 0 && v.every((x) => typeof x === "string")) {
        const r = redactLines(v);
        total += r.redactions;
        return r.lines.map(walk);
      }
      return v.map(walk);
    }
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return { value: walk(value) as T, redactions: total };
}
