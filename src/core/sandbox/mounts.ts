/**
 * Other mounts of hidden paths, for bubblewrap and systemd-run (issue 19): both hide a path by mounting over it, so a
 * second mount that shows the same files (a bind mount of /home at /mnt/h, a second mount of the file system
 * /home is on) stays visible. The probe prints the host's mount table (`/proc/self/mountinfo`: device, root
 * within its file system, mount point); `aliasesOf` finds, by mount identity
 * (device and root), every other place a hidden path shows up, and the bubblewrap wrapper and systemd-run's
 * InaccessiblePaths= hide those too. The
 * hostgate-confine helper does the same in C at each run (native/confine-helper.c, `find_others`). Source of the
 * fields: proc_pid_mountinfo(5).
 */
import { parseMountinfo } from "../host/mountinfo.ts";

/** One mount as the probe reports it: device (`major:minor`), root of the mount within its file system, mount point. */
export interface MountEntry {
  dev: string;
  root: string;
  point: string;
}

/**
 * The mounts of mountinfo lines (the probe prints the host's `/proc/self/mountinfo`), parsed by the one mountinfo
 * parser (core/host/mountinfo.ts `parseMountinfo`: malformed lines skipped, escapes undone), keeping what
 * `aliasesOf` needs; a root or mount point that is not an absolute path is left out.
 */
export function mountsOf(lines: readonly string[]): MountEntry[] {
  return parseMountinfo(lines.join("\n"))
    .filter((m) => m.root.startsWith("/") && m.mount_point.startsWith("/"))
    .map((m) => ({ dev: m.device, root: m.root, point: m.mount_point }));
}

/** The rest of `p` below `dir` ("" or "/…"), or null when `p` is not `dir` or below it (lexically). */
function below(p: string, dir: string): string | null {
  if (dir === "/") return p.startsWith("/") ? (p === "/" ? "" : p) : null;
  return p === dir ? "" : p.startsWith(`${dir}/`) ? p.slice(dir.length) : null;
}

function join(a: string, rest: string): string {
  return a === "/" ? (rest === "" ? "/" : rest) : `${a}${rest}`;
}

/**
 * Every other mount point at which (part of) the absolute path `path` shows up in `mounts` (the host's mount
 * table, in mountinfo order): `path` lies on the mount with the longest mount point above it (the last such one
 * when mounts are stacked), at `root + (path − point)` of device D; every other mount of D whose root lies under
 * that shows part of it at its mount point, and every one whose root lies above it shows it at
 * `point + (rest − root)`. Lexical: a symlink in `path` is not followed (the wrapper resolves hidden directories
 * on the host, so a link's target is also listed by the caller when it matters). Returns no duplicates and never
 * `path` itself; [] when `path` is on no listed mount (its device is mounted once).
 */
export function aliasesOf(path: string, mounts: readonly MountEntry[]): string[] {
  let own: MountEntry | undefined;
  let ownRest = "";
  for (const m of mounts) {
    const rest = below(path, m.point);
    if (rest !== null && (own === undefined || m.point.length >= own.point.length)) {
      own = m;
      ownRest = rest;
    }
  }
  if (own === undefined) return [];
  const rel = join(own.root, ownRest);
  const out = new Set<string>();
  for (const m of mounts) {
    if (m === own || m.dev !== own.dev) continue;
    const under = below(rel, m.root);
    if (under !== null) out.add(join(m.point, under));
    else if (below(m.root, rel) !== null) out.add(m.point);
  }
  out.delete(path);
  return [...out];
}
