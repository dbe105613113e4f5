/** One account of /etc/passwd (passwd(5)); the password field is never kept. */
export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  gecos: string;
  home: string;
  shell: string;
}

/** One group of /etc/group (group(5)); the password field is never kept. */
export interface GroupEntry {
  name: string;
  gid: number;
  members: string[];
}

/** Parses /etc/passwd: `name:password:uid:gid:gecos:home:shell`. Comments, NIS `+`/`-` lines and malformed lines are skipped. */
export function parsePasswd(text: string): PasswdEntry[] {
  const out: PasswdEntry[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#") || line.startsWith("+") || line.startsWith("-")) continue;
    const f = line.split(":");
    if (f.length < 7 || !/^\d+$/.test(f[2]!) || !/^\d+$/.test(f[3]!)) continue;
    out.push({ name: f[0]!, uid: Number(f[2]), gid: Number(f[3]), gecos: f[4]!, home: f[5]!, shell: f.slice(6).join(":") });
  }
  return out;
}

/** Parses /etc/group: `name:password:gid:member,member`. Same skipping rules as {@link parsePasswd}. */
export function parseGroup(text: string): GroupEntry[] {
  const out: GroupEntry[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#") || line.startsWith("+") || line.startsWith("-")) continue;
    const f = line.split(":");
    if (f.length < 4 || !/^\d+$/.test(f[2]!)) continue;
    out.push({ name: f[0]!, gid: Number(f[2]), members: f[3]!.split(",").filter((m) => m !== "") });
  }
  return out;
}

/** The gid of group `name` in the text of /etc/group (group(5), read by {@link parseGroup}), or null when it has none. */
export function groupIdIn(text: string, name: string): number | null {
  return parseGroup(text).find((g) => g.name === name)?.gid ?? null;
}

/** The name of the first group with gid `gid` in the text of /etc/group (group(5), read by {@link parseGroup}), or null. */
export function groupNameIn(text: string, gid: number): string | null {
  return parseGroup(text).find((g) => g.gid === gid)?.name ?? null;
}

/**
 * UID_MIN and SYS_UID_MAX-style bounds from /etc/login.defs (login.defs(5)): the first uid given to human
 * accounts, default 1000 (shadow-utils' default) when the file or key is absent.
 */
export function uidMin(loginDefs: string | null): number {
  const m = loginDefs === null ? null : /^\s*UID_MIN\s+(\d+)/m.exec(loginDefs);
  return m ? Number(m[1]) : 1000;
}

/** Shells that refuse interactive logins (nologin(8), false(1)). */
export function isNoLoginShell(shell: string): boolean {
  return shell === "" ? false : /\/(nologin|false)$/.test(shell) || shell === "/bin/sync";
}
