/**
 * Who besides root could change what root runs, reads or writes: the one ownership rule of hostgate's root
 * code (DESIGN.md, "Root never follows a path a user or model can shape"). Used for a system daemon's `node`
 * and package tree (adapters/install-tree.ts; issue 22, "daemon install refuses a writable node or package
 * tree"), the hostgate-confine helper root runs for every unapproved command (adapters/confine-helper.ts), and
 * the directories of a client file setup writes as root (adapters/client-files.ts).
 * The rule is the one OpenSSH applies to authorized_keys under StrictModes (sshd(8)): owned by root and not
 * writable by group or others. A directory with the sticky bit (like /tmp, mode 1777) may be writable when the
 * caller allows it (`sticky: "allow"`): others may add entries to it but cannot rename or remove root's. The
 * helper refuses it (`sticky: "refuse"`): a program root executes should sit where no one else can even add a
 * name beside it.
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

/** Whether a sticky world- or group-writable directory counts as trusted (`allow`, as sshd) or not (`refuse`). */
export interface TrustOptions {
  sticky: "allow" | "refuse";
}

/**
 * Why a non-root user could change `e`, in words ("owned by uid 1000", "writable by group 1000", "writable by
 * everyone", with "(sticky is not enough here)" when `opts.sticky` is `refuse`), or null when only root can.
 * Group write is fine for group 0 (root's group holds root alone). `opts` defaults to `{ sticky: "allow" }`.
 */
export function untrustedWriter(e: EntryFacts, opts: TrustOptions = { sticky: "allow" }): string | null {
  if (e.uid !== 0) return `owned by uid ${e.uid}`;
  const sticky = e.dir && (e.mode & STICKY) !== 0;
  if (sticky && opts.sticky === "allow") return null;
  const note = sticky ? " (sticky is not enough here)" : "";
  if ((e.mode & OTHER_WRITE) !== 0) return `writable by everyone${note}`;
  if ((e.mode & GROUP_WRITE) !== 0 && e.gid !== 0) return `writable by group ${e.gid}${note}`;
  return null;
}
