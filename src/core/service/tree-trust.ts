/**
 * Who besides root could change what a root service runs. A system daemon runs `node` and hostgate's package
 * tree as root: if a non-root user can write any file of it, or any directory on the way to it, that user can
 * run code as root at the next start (issue 22, "daemon install refuses a writable node or package tree").
 * The rule is the one OpenSSH applies to authorized_keys under StrictModes (sshd(8)): owned by root and not
 * writable by group or others. A directory with the sticky bit (like /tmp, mode 1777) is allowed to be
 * writable: others may add entries to it but cannot rename or remove root's.
 */

/** Facts about one filesystem entry, as lstat/stat report them. `mode` holds the permission and sticky bits. */
export interface EntryFacts {
  path: string;
  uid: number;
  gid: number;
  mode: number;
  dir: boolean;
}

const STICKY = 0o1000;
const GROUP_WRITE = 0o020;
const OTHER_WRITE = 0o002;

/**
 * Why a non-root user could change `e`, in words ("owned by uid 1000", "writable by group 1000", "writable by
 * everyone"), or null when only root can. Group write is fine for group 0 (root's group holds root alone).
 */
export function untrustedWriter(e: EntryFacts): string | null {
  if (e.uid !== 0) return `owned by uid ${e.uid}`;
  const sticky = e.dir && (e.mode & STICKY) !== 0;
  if (sticky) return null;
  if ((e.mode & OTHER_WRITE) !== 0) return "writable by everyone";
  if ((e.mode & GROUP_WRITE) !== 0 && e.gid !== 0) return `writable by group ${e.gid}`;
  return null;
}
