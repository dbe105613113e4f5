/** One mount from /proc/self/mountinfo. */
export interface MountEntry {
  mount_id: number;
  /** major:minor of the file system's device (st_dev). */
  device: string;
  /** The directory of the file system that forms the root of this mount ("/" unless a bind mount of a subtree). */
  root: string;
  mount_point: string;
  fs_type: string;
  source: string;
  /** Per-mount options (rw, nosuid, relatime…). */
  options: string;
  /** Per-superblock options (the file system's own: size=, mode=, errors=…). */
  super_options: string;
}

/** Decodes the octal escapes (`\040` space, `\011` tab, `\012` newline, `\134` backslash) the kernel writes. */
export function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/**
 * Parses /proc/self/mountinfo (proc(5)): `id parent major:minor root mount-point options [optional…] - fstype source super-options`.
 * The optional fields end at the lone `-` separator. Malformed lines are skipped.
 */
export function parseMountinfo(text: string): MountEntry[] {
  const mounts: MountEntry[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const fields = line.split(" ");
    const sep = fields.indexOf("-", 6);
    if (sep < 0 || fields.length < sep + 3) continue;
    mounts.push({
      mount_id: Number(fields[0]),
      device: fields[2]!,
      root: unescapeMountField(fields[3]!),
      mount_point: unescapeMountField(fields[4]!),
      options: fields[5]!,
      fs_type: fields[sep + 1]!,
      source: unescapeMountField(fields[sep + 2]!),
      super_options: fields[sep + 3] ?? "",
    });
  }
  return mounts;
}

/**
 * File system types that hold no user data (kernel interfaces and in-memory control trees). df(1) hides
 * them by default because they report zero blocks; we list them explicitly so the rule is visible.
 */
export const PSEUDO_FS_TYPES: ReadonlySet<string> = new Set([
  "proc", "sysfs", "devpts", "cgroup", "cgroup2", "pstore", "bpf", "tracefs", "debugfs", "securityfs", "mqueue",
  "hugetlbfs", "configfs", "fusectl", "autofs", "binfmt_misc", "rpc_pipefs", "nsfs", "efivarfs", "selinuxfs",
]);

/**
 * The mounts df(1) shows, one per file system: a mount point mounted over keeps only its last (visible) mount,
 * and a device mounted several times (bind mounts) keeps the entry with root "/" and the shortest mount point,
 * as coreutils df does without -a. Order follows the kept entries' positions in mountinfo.
 */
export function visibleMounts(mounts: readonly MountEntry[]): MountEntry[] {
  const lastAt = new Map<string, MountEntry>();
  for (const m of mounts) lastAt.set(m.mount_point, m);
  const best = new Map<string, MountEntry>();
  const better = (a: MountEntry, b: MountEntry): boolean =>
    (a.root === "/") !== (b.root === "/") ? a.root === "/" : a.mount_point.length < b.mount_point.length;
  for (const m of lastAt.values()) {
    const seen = best.get(m.device);
    if (seen === undefined || better(m, seen)) best.set(m.device, m);
  }
  const kept = new Set(best.values());
  return mounts.filter((m) => kept.has(m));
}

/**
 * The mount that holds `path` (absolute, normalised, symlinks already resolved): the entry with the longest
 * mount point that is `path` or one of its parent directories; of mounts stacked on one point, the last listed
 * (mountinfo lists them in mount order, so the last is the one on top). Null when none matches.
 */
export function mountOf(mounts: readonly MountEntry[], path: string): MountEntry | null {
  let best: MountEntry | null = null;
  for (const m of mounts) {
    const under = m.mount_point === "/" || path === m.mount_point || path.startsWith(`${m.mount_point}/`);
    if (under && (best === null || m.mount_point.length >= best.mount_point.length)) best = m;
  }
  return best;
}

/** Whether a mount's per-mount options say read-only (`ro`). */
export function isReadOnlyMount(m: MountEntry): boolean {
  return m.options.split(",").includes("ro");
}
