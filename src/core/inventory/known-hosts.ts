/**
 * OpenSSH known_hosts lines (sshd(8), "SSH_KNOWN_HOSTS FILE FORMAT"), parsed without I/O. A line is
 * `[@marker] patterns keytype base64-key [comment]`; patterns are comma-separated host names with `*`/`?`
 * wildcards, `!` negations and `[host]:port` for non-default ports, or one hashed entry `|1|salt|hash`
 * (HMAC-SHA1 of the name under the salt, both base64) which cannot be listed, only tested against a name.
 */

/** One parsed line. `hashed` holds the salt and digest of a hashed entry; `patterns` the plain ones. */
export interface KnownHostEntry {
  line: number;
  marker: "revoked" | "cert-authority" | null;
  patterns: string[];
  hashed: { salt: string; hash: string } | null;
  key_type: string;
  key: string;
}

/** A line that could not be parsed: kept so callers can say so (never silently trusted). */
export interface KnownHostProblem {
  line: number;
  reason: string;
}

/** Parses a known_hosts file. Blank lines and `#` comments are skipped; malformed lines are reported. */
export function parseKnownHosts(text: string): { entries: KnownHostEntry[]; problems: KnownHostProblem[] } {
  const entries: KnownHostEntry[] = [];
  const problems: KnownHostProblem[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const fields = line.split(/\s+/);
    let marker: KnownHostEntry["marker"] = null;
    if (fields[0]!.startsWith("@")) {
      const m = fields.shift()!;
      if (m === "@revoked") marker = "revoked";
      else if (m === "@cert-authority") marker = "cert-authority";
      else {
        problems.push({ line: i + 1, reason: `unknown marker ${m}` });
        return;
      }
    }
    if (fields.length < 3) {
      problems.push({ line: i + 1, reason: "expected hosts, key type and key" });
      return;
    }
    const [hosts, keyType, key] = fields as [string, string, string];
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) {
      problems.push({ line: i + 1, reason: "the key is not base64" });
      return;
    }
    if (hosts.startsWith("|1|")) {
      const parts = hosts.split("|");
      if (parts.length !== 4 || !parts[2] || !parts[3]) {
        problems.push({ line: i + 1, reason: "malformed hashed host entry" });
        return;
      }
      entries.push({ line: i + 1, marker, patterns: [], hashed: { salt: parts[2], hash: parts[3] }, key_type: keyType, key });
      return;
    }
    entries.push({ line: i + 1, marker, patterns: hosts.split(","), hashed: null, key_type: keyType, key });
  });
  return { entries, problems };
}

/** The name known_hosts stores for a host and port: `host` on 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host.toLowerCase() : `[${host.toLowerCase()}]:${port}`;
}

/** OpenSSH wildcard match: `*` any run, `?` exactly one character, case-insensitive for host names. */
export function wildcardMatch(pattern: string, text: string): boolean {
  const re = new RegExp(`^${pattern.toLowerCase().replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`, "s");
  return re.test(text.toLowerCase());
}

/**
 * Whether a plain entry's pattern list matches `name` (ssh's match_hostname): a negated pattern that matches
 * excludes the entry; otherwise one positive match suffices.
 */
export function patternsMatch(patterns: readonly string[], name: string): boolean {
  let positive = false;
  for (const p of patterns) {
    if (p.startsWith("!")) {
      if (wildcardMatch(p.slice(1), name)) return false;
    } else if (wildcardMatch(p, name)) positive = true;
  }
  return positive;
}

/** Names a plain entry lists as concrete hosts (no wildcard or negation), with `[host]:port` unwrapped. */
export function listableHosts(e: KnownHostEntry): { host: string; port: number }[] {
  const out: { host: string; port: number }[] = [];
  for (const p of e.patterns) {
    if (p.startsWith("!") || /[*?]/.test(p)) continue;
    const m = /^\[([^\]]+)\]:(\d+)$/.exec(p);
    if (m) out.push({ host: m[1]!, port: Number(m[2]) });
    else out.push({ host: p, port: 22 });
  }
  return out;
}
