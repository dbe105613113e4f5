/** One mount from /proc/self/mountinfo. */
export interface MountEntry {
  mount_id: number;
  /** The mount this one is attached to (mountinfo's second field; a mount over another names the one it covers). */
  parent_id: number;
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
      parent_id: Number(fields[1]),
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
 * The mounts a path lookup can reach (proc(5), mount_namespaces(7)): a mount is hidden when another mount sits on
 * the same mount point with it as parent (an over-mount: `mount` on an existing mount point), or when its parent is
 * hidden (a mount inside a tree that was mounted over). Judged by mount ids, not by line order. A parent id that is
 * not listed (the namespace's root, or a mount outside a chroot) counts as visible. Order is kept.
 */
export function reachableMounts(mounts: readonly MountEntry[]): MountEntry[] {
  const byId = new Map(mounts.map((m) => [m.mount_id, m]));
  const covered = new Set<number>();
  for (const m of mounts) {
    const under = byId.get(m.parent_id);
    if (under !== undefined && under !== m && under.mount_point === m.mount_point) covered.add(under.mount_id);
  }
  // reach: a lookup gets to m. attach: a lookup gets to where m is attached (its parent's mount point when m is
  // stacked on its parent, else a directory inside the parent, which needs the parent itself reachable).
  const memo = new Map<number, boolean>();
  const attach = (m: MountEntry, depth: number): boolean => {
    const parent = byId.get(m.parent_id);
    // depth bounds a malformed file whose parent ids loop.
    if (parent === undefined || parent === m || depth > 256) return true;
    return parent.mount_point === m.mount_point ? attach(parent, depth + 1) : reach(parent, depth + 1);
  };
  const reach = (m: MountEntry, depth = 0): boolean => {
    const known = memo.get(m.mount_id);
    if (known !== undefined) return known;
    const r = !covered.has(m.mount_id) && attach(m, depth);
    memo.set(m.mount_id, r);
    return r;
  };
  return mounts.filter((m) => reach(m));
}

/**
 * The mounts df(1) shows, one per file system: only mounts a path lookup reaches ({@link reachableMounts}: an
 * over-mounted point keeps its top mount), and a device mounted several times (bind mounts) keeps the entry with
 * root "/" and the shortest mount point, as coreutils df does without -a. Order follows the kept entries' positions
 * in mountinfo.
 */
export function visibleMounts(mounts: readonly MountEntry[]): MountEntry[] {
  const lastAt = new Map<string, MountEntry>();
  for (const m of reachableMounts(mounts)) lastAt.set(m.mount_point, m);
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
 * The mount that holds `path` (absolute, normalised, symlinks already resolved): of the mounts a lookup reaches
 * ({@link reachableMounts}), the one with the longest mount point that is `path` or one of its parent
 * directories; a mount inside a tree that was mounted over is not one of them, and of mounts stacked on one point
 * the top one is (by parent id; the last listed if the ids do not tell). Null when none matches.
 */
export function mountOf(mounts: readonly MountEntry[], path: string): MountEntry | null {
  let best: MountEntry | null = null;
  for (const m of reachableMounts(mounts)) {
    const under = m.mount_point === "/" || path === m.mount_point || path.startsWith(`${m.mount_point}/`);
    if (under && (best === null || m.mount_point.length >= best.mount_point.length)) best = m;
  }
  return best;
}

/** Whether a mount's per-mount options say read-only (`ro`). */
export function isReadOnlyMount(m: MountEntry): boolean {
  return m.options.split(",").includes("ro");
}
