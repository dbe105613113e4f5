import { createHash, createHmac } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { HostgateError } from "../../core/errors.ts";
import { knownHostsName, parseKnownHosts, patternsMatch, wildcardMatch, type KnownHostEntry } from "../../core/inventory/known-hosts.ts";

/**
 * Host-key checking against OpenSSH known_hosts files, hashed entries included (corpus S006, S009, S010,
 * S011). The verdict is computed before authentication: ssh2 calls the verifier during key exchange.
 */

/** `SHA256:<base64 without padding>` of a public key blob, as `ssh-keygen -lf` prints it. */
export function fingerprint(blob: Buffer): string {
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

/** The key type named inside an SSH public key blob (its first string), e.g. `ssh-ed25519`. */
export function blobKeyType(blob: Buffer): string {
  if (blob.length < 4) return "";
  const n = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + n).toString("latin1");
}

function hashedMatches(e: KnownHostEntry, name: string): boolean {
  if (!e.hashed) return false;
  const salt = Buffer.from(e.hashed.salt, "base64");
  const digest = createHmac("sha1", salt).update(name).digest("base64");
  return digest === e.hashed.hash;
}

/** Whether an entry applies to `name` (plain patterns or a hashed name). */
export function entryMatches(e: KnownHostEntry, name: string): boolean {
  return e.hashed ? hashedMatches(e, name) : patternsMatch(e.patterns, name);
}

/** A plain line that names `name` itself: a hashed match, or a concrete (wildcard-free) pattern not negated. */
function namesExactly(e: KnownHostEntry, name: string): boolean {
  if (e.marker !== null) return false;
  if (e.hashed) return hashedMatches(e, name);
  return patternsMatch(e.patterns, name) && e.patterns.some((p) => !p.startsWith("!") && !/[*?]/.test(p) && wildcardMatch(p, name));
}

/** The outcome of checking one presented key. */
export type HostKeyVerdict =
  | { status: "known"; fingerprint: string }
  | { status: "unknown"; fingerprint: string; name: string }
  | { status: "mismatch"; fingerprint: string; name: string; known: { file: string; line: number; key_type: string }[] }
  | { status: "revoked"; fingerprint: string; name: string; file: string; line: number };

/** The last loadFresh result for each list of files, with the files' stat stamp it was read under. */
const fresh = new Map<string, { stamp: string; known: KnownHosts }>();

/** Loaded known_hosts files. Missing files count as empty; unreadable ones throw (fail closed, S011). */
export class KnownHosts {
  private readonly files: { path: string; entries: KnownHostEntry[] }[];

  /** By known_hosts name: the unmarked entries that apply to it and those that name it exactly (HMACs computed once). */
  private readonly matches = new Map<string, { applying: KnownHostEntry[]; exact: KnownHostEntry[] }>();

  private constructor(files: { path: string; entries: KnownHostEntry[] }[]) {
    this.files = files;
  }

  /**
   * The unmarked lines for `name`, memoised on this instance: loadFresh hands the same instance to every lease
   * while no file changed, so a hashed line's HMAC is computed once per name, not once per lease and per
   * resolution (issue 20: ≈ 12 % of a 20-host fan-out's CPU). Bounded: cleared past 4096 names.
   */
  private linesFor(name: string): { applying: KnownHostEntry[]; exact: KnownHostEntry[] } {
    let m = this.matches.get(name);
    if (m) return m;
    m = { applying: [], exact: [] };
    for (const f of this.files) {
      for (const e of f.entries) {
        if (e.marker !== null || !entryMatches(e, name)) continue;
        m.applying.push(e);
        if (namesExactly(e, name)) m.exact.push(e);
      }
    }
    if (this.matches.size >= 4096) this.matches.clear();
    this.matches.set(name, m);
    return m;
  }

  /** Reads `paths` now. Throws `permission_denied` when one exists but cannot be read. */
  static load(paths: readonly string[]): KnownHosts {
    const files: { path: string; entries: KnownHostEntry[] }[] = [];
    for (const path of paths) {
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw new HostgateError("permission_denied", `cannot read known_hosts file ${path}: ${(e as Error).message}`, {
          hint: "Fix the file's permissions; hostgate refuses to connect while it cannot check host keys.",
        });
      }
      files.push({ path, entries: parseKnownHosts(text).entries });
    }
    return new KnownHosts(files);
  }

  /**
   * Like `load`, but answers the last result for the same files while none changed size, mtime or inode (one
   * stat per file): what a pooled connection re-checks before each command, and what machine identity reads at
   * each resolution.
   */
  static loadFresh(paths: readonly string[]): KnownHosts {
    const stamp = paths.map((p) => {
      try {
        const st = statSync(p);
        return `${p}:${st.size}:${st.mtimeMs}:${st.ino}`;
      } catch {
        return `${p}:-`;
      }
    }).join("|");
    const key = paths.join("\0");
    const hit = fresh.get(key);
    if (hit?.stamp === stamp) return hit.known;
    const known = KnownHosts.load(paths);
    if (fresh.size >= 16) fresh.clear();
    fresh.set(key, { stamp, known });
    return known;
  }

  /** Key types known for a host (for host-key algorithm preference), in file order. */
  keyTypesFor(host: string, port: number): string[] {
    const name = knownHostsName(host, port);
    const types: string[] = [];
    for (const e of this.linesFor(name).applying) if (!types.includes(e.key_type)) types.push(e.key_type);
    return types;
  }

  /**
   * For machine identity (core/inventory/identity.ts): a test of whether another (host, port) is recorded
   * with a key that known_hosts records for (`host`, `port`). Only plain lines (no `@cert-authority`, no
   * `@revoked`) that name the host itself count — a hashed name or a pattern without wildcards; a wildcard
   * line says which keys are accepted for many hosts, not which machine holds one. Ports are compared through
   * the names (`[host]:port`), so one key on two ports of one address is one machine.
   */
  keyTwins(host: string, port: number): (host: string, port: number) => boolean {
    const name = knownHostsName(host, port);
    const keys = new Set(this.linesFor(name).exact.map((e) => e.key));
    if (keys.size === 0) return () => false;
    return (h, p) => this.linesFor(knownHostsName(h, p)).exact.some((e) => keys.has(e.key));
  }

  /** The path of the file an entry was read from. */
  private fileOf(e: KnownHostEntry): string {
    return this.files.find((f) => f.entries.includes(e))!.path;
  }

  /** Checks a presented key blob for `host:port` (`name` as known_hosts writes it). */
  verify(host: string, port: number, blob: Buffer): HostKeyVerdict {
    const name = knownHostsName(host, port);
    const fp = fingerprint(blob);
    const b64 = blob.toString("base64");
    for (const f of this.files) {
      for (const e of f.entries) if (e.marker === "revoked" && e.key === b64) return { status: "revoked", fingerprint: fp, name, file: f.path, line: e.line };
    }
    const known: { file: string; line: number; key_type: string }[] = [];
    for (const e of this.linesFor(name).applying) {
      if (e.key === b64) return { status: "known", fingerprint: fp };
      known.push({ file: this.fileOf(e), line: e.line, key_type: e.key_type });
    }
    // A different key of another type is not a mismatch in OpenSSH's sense only when the types differ; we are
    // stricter: any known key for the name and a different presented key is refused.
    if (known.length > 0) return { status: "mismatch", fingerprint: fp, name, known };
    return { status: "unknown", fingerprint: fp, name };
  }
}

/** Appends a plain entry for a newly trusted host (trust on first use, only when configured). */
export function appendKnownHost(path: string, host: string, port: number, blob: Buffer): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  appendFileSync(path, `${knownHostsName(host, port)} ${blobKeyType(blob)} ${blob.toString("base64")}\n`, { mode: 0o600 });
}

/** The refusal for a verdict other than `known`: says the fingerprint and what to do. */
export function hostKeyError(v: Exclude<HostKeyVerdict, { status: "known" }>, host: string, port: number): HostgateError {
  const scan = `ssh-keyscan${port === 22 ? "" : ` -p ${port}`} ${host}`;
  switch (v.status) {
    case "unknown":
      return new HostgateError("host_key_unknown", `host key of ${v.name} is not in known_hosts (presented ${v.fingerprint}); nothing was sent`, {
        hint: `Check the fingerprint out of band, then add it: ${scan} >> ~/.ssh/known_hosts (or ssh to it once). Trust on first use is off unless exec.host_keys: tofu.`,
        details: { fingerprint: v.fingerprint, name: v.name },
      });
    case "mismatch":
      return new HostgateError("host_key_mismatch", `host key of ${v.name} does not match known_hosts (presented ${v.fingerprint}): possible interception; nothing was sent`, {
        hint: `If the host was really re-keyed, verify the new fingerprint out of band and replace the entry (ssh-keygen -R '${v.name}'); otherwise investigate.`,
        details: { fingerprint: v.fingerprint, name: v.name, known: v.known },
      });
    case "revoked":
      return new HostgateError("host_key_mismatch", `host key of ${v.name} is marked @revoked in ${v.file}:${v.line} (${v.fingerprint}); refusing`, {
        hint: "A revoked key must never be accepted: the host needs a new key, verified out of band.",
        details: { fingerprint: v.fingerprint, name: v.name, revoked: true },
      });
  }
}
