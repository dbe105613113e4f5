/** One mount from /proc/self/mountinfo. */
export interface MountEntry {
  mount_id: number;
  mount_point: string;
  fs_type: string;
  source: string;
  options: string;
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
      mount_point: unescapeMountField(fields[4]!),
      options: fields[5]!,
      fs_type: fields[sep + 1]!,
      source: unescapeMountField(fields[sep + 2]!),
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
