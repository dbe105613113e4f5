import { readFileSync } from "node:fs";
import { groupIdIn } from "../core/host/passwd.ts";

/**
 * The gid of a group by name from the group database file (/etc/group format: `name:x:gid:members`), or null
 * when there is no such group or the file cannot be read. NSS sources other than files (LDAP, sssd) are not
 * consulted: a group that exists only there resolves to null and is reported so (docs/configuration.md).
 */
export function lookupGroupId(name: string, groupFile = "/etc/group"): number | null {
  let text: string;
  try {
    text = readFileSync(groupFile, "utf8");
  } catch {
    return null;
  }
  return groupIdIn(text, name);
}

/**
 * Run as root (uid 0) under another primary group — the unit's `Group=hostgate`, or `setpriv --regid` — the
 * daemon takes group root (gid 0) as its primary group and returns the gid it had, which then names the agent
 * socket's group (cli/daemon.ts). Every file a process creates gets its primary group, and so would every file
 * an action, dpkg or a maintainer script run by the daemon creates: root:hostgate, and after a purge deletes the
 * group, a bare GID that a group created later would inherit (issue 25 re-trial; docs/install.md). setgid(2) as
 * root sets the real, effective and saved gid of every thread. Returns null (and changes nothing) when not root
 * or already gid 0. Throws what setgid(2) throws (not expected as root).
 */
export function takeRootPrimaryGroup(): number | null {
  if (process.getuid?.() !== 0 || process.getgid === undefined || process.setgid === undefined) return null;
  const gid = process.getgid();
  if (gid === 0) return null;
  process.setgid(0);
  return gid;
}
