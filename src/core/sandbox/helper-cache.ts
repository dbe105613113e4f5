/**
 * The hostgate-confine helper on an SSH host (mechanism `hostgate-confine`, native/confine-helper.c): the
 * daemon uploads its own static build over SFTP to a cache in the root login's home, named by the build's
 * SHA-256, and runs it from there. Nothing is installed system-wide; a host whose architecture differs from
 * the build's, whose login is not root, or where the cache fails the check below keeps bubblewrap.
 *
 * Why the cached file can be trusted at every exec without hashing it each time: the check
 * (`helperCheckCommand` → `judgeHelperCheck`, run at each probe, so every 10 minutes) requires the file's
 * SHA-256 to be the build's and the file and every directory above it to be owned by root, writable by no one
 * else (sticky directories refused) and no symbolic link, as lstat(2) reports them. From then on only root can
 * replace the file or any directory on its path, so there is no window between the check and an exec that a
 * non-root process could use. Sandboxed commands in particular cannot write there: they run as `nobody` in a
 * read-only view of the whole tree with `/root` (and `/home`) replaced by an empty read-only tmpfs, under every
 * mechanism (test/integration/sandbox-ssh-helper.test.ts tries it).
 */
import { untrustedWriter } from "../service/tree-trust.ts";

const MARK = "hostgate-helper:";

/** The cache directory of a root login whose home is `home` (absolute). */
export function helperCacheDir(home: string): string {
  return `${home === "/" ? "" : home.replace(/\/+$/, "")}/.cache/hostgate`;
}

/** Where the helper whose SHA-256 (lower-case hex) is `sha256` lives in that cache. */
export function helperCachePath(home: string, sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`helperCachePath: not a SHA-256 in hex: ${JSON.stringify(sha256)}`);
  return `${helperCacheDir(home)}/hostgate-confine-${sha256}`;
}

/** Whether `p` is an absolute path of plain names (what the probe may report as a home, what the cache uses). */
export function plainAbsolutePath(p: string): boolean {
  return /^\/([\w.@+-]+\/?)*$/.test(p) && !/(^|\/)\.\.?(\/|$)/.test(p) && p.length <= 512;
}

/**
 * One shell line (POSIX sh, coreutils `sha256sum` and `stat`) that prints the file's hash and the owner, group
 * and mode (hex, with the type bits) of the file and of each directory above it, without following links.
 * `path` must pass `plainAbsolutePath` (it is also quoted).
 */
export function helperCheckCommand(path: string): string {
  if (!plainAbsolutePath(path)) throw new Error(`helperCheckCommand: not a plain absolute path: ${JSON.stringify(path)}`);
  return [
    `p='${path}'`,
    `h=$(sha256sum -- "$p" 2>/dev/null) && echo "${MARK}sha=\${h%% *}"`,
    `while :; do stat -c '${MARK}stat=%u:%g:%f:%n' -- "$p" 2>/dev/null || echo "${MARK}missing=$p"; [ "$p" = / ] && break; p=\${p%/*}; [ -n "$p" ] || p=/; done`,
    "true",
  ].join("; ");
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

/**
 * Judges `helperCheckCommand(path)`'s output: null when the file at `path` holds `sha256` and only root can
 * change it or any directory above it, else why not, in words (`missing`, `hash differs`, `/root/.cache is
 * writable by everyone`…). A missing file is reported as `missing` (the caller uploads then checks again).
 */
export function judgeHelperCheck(stdout: string, path: string, sha256: string): string | null {
  let sha = "";
  const stats = new Map<string, { uid: number; gid: number; mode: number }>();
  const missing: string[] = [];
  for (const line of stdout.split("\n")) {
    if (!line.startsWith(MARK)) continue;
    const body = line.slice(MARK.length);
    if (body.startsWith("sha=")) sha = body.slice(4);
    else if (body.startsWith("missing=")) missing.push(body.slice(8));
    else if (body.startsWith("stat=")) {
      const m = /^(\d+):(\d+):([0-9a-f]+):(.*)$/.exec(body.slice(5));
      if (m) stats.set(m[4]!, { uid: Number(m[1]), gid: Number(m[2]), mode: parseInt(m[3]!, 16) });
    }
  }
  if (missing.includes(path) || (!stats.has(path) && sha === "")) return "missing";
  const chain: string[] = [];
  for (let p = path; ; p = p.slice(0, p.lastIndexOf("/")) || "/") {
    chain.push(p);
    if (p === "/") break;
  }
  for (const p of chain) {
    const s = stats.get(p);
    if (!s) return `${p} could not be examined (stat)`;
    const type = s.mode & S_IFMT;
    if (p === path ? type !== S_IFREG : type !== S_IFDIR) return `${p} is not a ${p === path ? "regular file" : "directory"} (a symbolic link or another type)`;
    const why = untrustedWriter({ path: p, uid: s.uid, gid: s.gid, mode: s.mode & 0o7777, dir: type === S_IFDIR }, { sticky: "refuse" });
    if (why !== null) return `${p} is ${why}`;
  }
  if ((stats.get(path)!.mode & 0o100) === 0) return `${path} is not executable`;
  if (sha !== sha256) return `${path} holds another file (SHA-256 ${sha.slice(0, 12) || "unreadable"}…, expected ${sha256.slice(0, 12)}…)`;
  return null;
}
