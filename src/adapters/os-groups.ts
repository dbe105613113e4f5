import { readFileSync } from "node:fs";

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

/** The gid of group `name` in the text of a group database file (`name:x:gid:members` lines), or null. */
export function groupIdIn(text: string, name: string): number | null {
  for (const line of text.split("\n")) {
    const [n, , gid] = line.split(":");
    if (n === name && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  return null;
}
