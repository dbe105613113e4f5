/**
 * What a sandbox must know about the SSH login itself (issue 19, the non-root-login re-trial): which homes to
 * hide besides /home and /root, and which supplementary groups the login would carry into a confined command.
 * Pure: the probe's lines are fixed text (confine.ts `probeCommand` includes them), parsed here.
 *
 * Homes. The wrapper empties /home, /root and /run/user; a login whose home is elsewhere (`svc` with home
 * `/srv/svc`) kept its `~/.env` and `~/.ssh` readable to its own commands. The probe reports the login's home
 * twice (`$HOME`, and /etc/passwd through getent) and every home in /etc/passwd outside /home of a non-system
 * user (uid LOGIN_UID_MIN up to, not including, 65534: login.defs' UID_MIN on Debian, Ubuntu and Fedora) that is a
 * directory owned by that user; each is hidden (an empty tmpfs, an empty directory, or InaccessiblePaths=).
 * A home that is a system directory (`/`, `/usr`, `/var/lib`…: hiding it would break every command) is never
 * hidden; when that is the non-root login's own home, its files are readable to its commands, so such a host runs
 * nothing unapproved (`loginRefusal`).
 *
 * Groups. An unprivileged user namespace (bubblewrap as a non-root login) cannot drop supplementary groups:
 * setgroups(2) is denied there (user_namespaces(7), "/proc/[pid]/setgroups"), and the kernel still checks them on
 * every access even when unmapped (they show as `nogroup`). A group that owns a root service's 0660 socket, or
 * `docker`, then reaches that service from inside the sandbox. Groups the sandbox grants on purpose (the log
 * readers, LOG_GROUPS) and those the operator accepts (`exec.accept_login_groups`) are fine; any other one
 * means the host cannot enforce the unprivileged identity as that login.
 */
import { plainAbsolutePath } from "./helper-cache.ts";

/** The lowest uid of a regular (non-system) user: login.defs' UID_MIN default on Debian, Ubuntu, Fedora. */
const LOGIN_UID_MIN = 1000;

/** What the probe learns about the login beyond its uid (SandboxFacts extends this). */
export interface LoginFacts {
  /** The login's `$HOME`, when it is a plain absolute path (helper-cache.ts `plainAbsolutePath`). */
  home?: string;
  /** The login's home as /etc/passwd (getent) names it, when a plain absolute path. */
  passwd_home?: string;
  /** Homes outside /home of non-system users, each a directory owned by its user (plain absolute paths). */
  user_homes?: string[];
  /** The login's primary gid. */
  gid?: number;
  /** The login's supplementary groups (`id -G` without the primary gid), with names (`id -Gn`; the number when unnamed). */
  login_groups?: { gid: number; name: string }[];
  /**
   * Set when these facts come from the probe run again through `sudo -n` (a non-root login on a host configured
   * `become: sudo`): every confined command then runs through `sudo -n` as root, which drops to the unprivileged
   * identity with no login group. `login_uid`: the login's own uid; `login_homes`: its homes, hidden as well.
   */
  via_sudo?: { login_uid: number; login_homes: string[] };
  /** The host is configured `become: sudo` but `sudo -n` did not give root: why (sudo's first line). */
  sudo_failed?: string;
}

/** Directories that are never hidden as a home (hiding them breaks the commands the sandbox is for). */
const SYSTEM_DIRS: ReadonlySet<string> = new Set([
  "/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt", "/opt", "/proc", "/run", "/sbin",
  "/srv", "/sys", "/tmp", "/usr", "/var", "/var/backups", "/var/cache", "/var/lib", "/var/local", "/var/lock", "/var/log",
  "/var/mail", "/var/opt", "/var/run", "/var/spool", "/var/tmp",
]);

/** Whether `p` may be hidden as a home: a plain absolute path, not a system directory nor under /usr, /etc, /proc, /sys, /dev, /boot. */
export function hideableHome(p: string): boolean {
  const d = p.length > 1 ? p.replace(/\/+$/, "") : p;
  return plainAbsolutePath(d) && !SYSTEM_DIRS.has(d) && !/^\/(usr|etc|proc|sys|dev|boot|bin|sbin|lib\w*)\//.test(d);
}

/**
 * The probe's lines about the login (each prints `<mark>key=value`): its home from /etc/passwd, its primary gid,
 * all its gids and their names, and the other users' homes outside /home (awk over /etc/passwd; one `stat` per
 * candidate checks the owner). Fixed text.
 */
export function loginProbeLines(m: string): string[] {
  return [
    `x=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6) && [ -n "$x" ] && echo "${m}passwd_home=$x"`,
    `echo "${m}gid=$(id -g)"`,
    `echo "${m}groups=$(id -G)"`,
    `echo "${m}group_names=$(id -Gn 2>/dev/null)"`,
    `awk -F: '$3 >= ${LOGIN_UID_MIN} && $3 < 65534 && $6 ~ /^\\/[^[:space:]]*$/ && $6 !~ /^\\/home(\\/|$)/ { print $3 ":" $6 }' /etc/passwd 2>/dev/null | while IFS=: read -r u h; do [ -d "$h" ] && [ "$(stat -c %u -- "$h" 2>/dev/null)" = "$u" ] && echo "${m}user_home=$h"; done`,
  ];
}

/** Raw `groups` / `group_names` values kept until the end of a parse (`finishLoginFacts`). */
export interface LoginScratch { groups?: string; names?: string }

/** Reads one probe line about the login into `f` (or `s`); false when `key` is not one of these lines. */
export function parseLoginLine(key: string, value: string, f: LoginFacts, s: LoginScratch): boolean {
  if (key === "passwd_home") { if (plainAbsolutePath(value)) f.passwd_home = value; }
  else if (key === "gid") { if (/^\d{1,10}$/.test(value)) f.gid = Number(value); }
  else if (key === "groups") s.groups = value;
  else if (key === "group_names") s.names = value;
  else if (key === "user_home") { if (hideableHome(value)) (f.user_homes ??= []).push(value); }
  else return false;
  return true;
}

/** Sets `login_groups` from the scratch: the gids other than the primary one, named by position (`id -Gn`'s order). */
export function finishLoginFacts(f: LoginFacts, s: LoginScratch): void {
  if (s.groups === undefined) return;
  const gids = s.groups.trim().split(/\s+/).filter((g) => /^\d{1,10}$/.test(g));
  const names = (s.names ?? "").trim().split(/\s+/);
  const named = names.length === gids.length;
  f.login_groups = gids.map((g, i) => ({ gid: Number(g), name: named && /^[\w.@-]{1,64}$/.test(names[i]!) ? names[i]! : g })).filter((g) => g.gid !== f.gid);
}

/** The login's own homes (`$HOME` and /etc/passwd's), deduplicated. */
export function ownHomes(f: LoginFacts): string[] {
  return [...new Set([f.home, f.passwd_home].filter((h): h is string => h !== undefined))];
}

/**
 * The homes a confined command must not see besides `already` (the fixed hidden directories: /home, /root,
 * /run/user…): the login's own (and, through sudo, the login's before sudo), the other users' outside /home;
 * without system directories, without any at or under one of `already` or under another in the list.
 */
export function hiddenHomes(f: LoginFacts, already: readonly string[]): string[] {
  const all = [...ownHomes(f), ...(f.via_sudo?.login_homes ?? []), ...(f.user_homes ?? [])]
    .map((h) => (h.length > 1 ? h.replace(/\/+$/, "") : h))
    .filter(hideableHome);
  const under = (p: string, d: string): boolean => p === d || p.startsWith(`${d}/`);
  const out: string[] = [];
  for (const h of [...new Set(all)].sort((a, b) => a.length - b.length)) {
    if (already.some((d) => under(h, d)) || out.some((d) => under(h, d))) continue;
    out.push(h);
  }
  return out;
}

/** The login's supplementary groups a confined command would keep that are neither granted (`granted`) nor accepted. */
function extraLoginGroups(f: LoginFacts, granted: readonly string[], accepted: readonly string[]): { gid: number; name: string }[] {
  return (f.login_groups ?? []).filter((g) => !granted.includes(g.name) && !accepted.includes(g.name));
}

/**
 * Why a non-root login (not through sudo) cannot be confined here, or null: its own home is a system directory
 * (it cannot be hidden), or it has supplementary groups other than `granted` and `accepted`. The reason names
 * the groups and the ways out. `granted`: the log readers' names; `accepted`: `exec.accept_login_groups`.
 */
export function loginRefusal(f: LoginFacts & { uid: number }, granted: readonly string[], accepted: readonly string[]): string | null {
  if (f.uid === 0 || f.via_sudo) return null;
  const sudo = f.sudo_failed ? ` (the host is configured become: sudo, but sudo -n did not give root: ${f.sudo_failed})` : "";
  const extra = extraLoginGroups(f, granted, accepted);
  if (extra.length > 0) {
    const names = extra.map((g) => `${g.name} (gid ${g.gid})`).join(", ");
    return `the login (uid ${f.uid}) is in the supplementary group${extra.length > 1 ? "s" : ""} ${names}, which bubblewrap cannot drop (an unprivileged user namespace may not call setgroups), so a command would reach what they reach (a 0660 socket, docker)${sudo}: log in as a user without ${extra.length > 1 ? "them" : "it"}, or set become: sudo with a NOPASSWD sudo rule for the login so commands run through sudo -n as nobody without the login's groups (exec.accept_login_groups accepts named groups on purpose, with that risk)`;
  }
  const bad = ownHomes(f).find((h) => !hideableHome(h));
  if (bad !== undefined) return `the login's home ${bad} is a system directory, which the sandbox cannot hide, so its files would be readable to commands run as the login${sudo}: give the login a home of its own, or set become: sudo with a NOPASSWD sudo rule for the login`;
  return null;
}
