/**
 * Confinement of commands that run without a human receipt (DESIGN.md, Rules: "Prediction is not enforcement").
 * The risk engine and policy only decide where a command goes; a command the gate allows runs through one of
 * these wrappers, on `local` and on SSH hosts alike, so a misjudged command fails inside the confinement
 * instead of changing the host:
 * - an unprivileged identity: for a root login a uid of its own per run from RUN_UID_POOL (hostgate-confine and
 *   bubblewrap; the host's `nobody` where the pool clashes with the host's accounts), systemd's DynamicUser= or
 *   `nobody` (systemd-run), or the SSH login itself when it is not root (it cannot change uid); supplementary
 *   groups only the host's log readers (`adm`, `systemd-journal`), so `journalctl` and `/var/log` work as far
 *   as those groups may read;
 * - a read-only view of the whole filesystem, a private writable `/tmp` and `/var/tmp` (SANDBOX_LIMITS.tmp_bytes each), empty `/home`,
 *   `/root` and `/run/user`, hostgate's own state, configuration and key directories replaced by empty ones,
 *   `/etc/shadow`, `/etc/gshadow` and `/etc/ssh/*_key` replaced by `/dev/null`, a minimal `/dev`;
 * - no network unless a policy grants it (`network`): bubblewrap gives the command a network namespace of its
 *   own (only `lo`; the host's abstract Unix sockets are out of reach; hostgate-confine scopes them with
 *   Landlock instead where the kernel can, and keeps the host's namespace) and a seccomp filter that allows only
 *   AF_UNIX and AF_NETLINK sockets (seccomp.ts), so path sockets (D-Bus: `systemctl`) still work; systemd-run
 *   uses RestrictAddressFamilies/IPAddressDeny;
 * - whatever the network, a seccomp filter (bubblewrap and hostgate-confine) that refuses namespaces of its own
 *   (a user namespace would hold every capability over the kernel's namespaced surface), kernel keyrings,
 *   userfaultfd, bpf, perf events, io_uring and foreign ABIs (seccomp.ts); systemd-run has RestrictNamespaces=,
 *   SystemCallArchitectures=native and a SystemCallFilter= of the same calls;
 * - its own PID namespace (bubblewrap) or unit (systemd): when the command ends, is cancelled or times out,
 *   everything it started ends with it, `setsid` children included.
 *
 * Three mechanisms, chosen per host by what a probe finds (`probeCommand` → `parseProbe` → `chooseSandbox`):
 * `hostgate-confine` (a root login, where the build produced the helper: the bubblewrap recipe below done by
 * one small static program, native/confine-helper.c, instead of the chain timeout → setpriv → bwrap, which cost
 * ≈ 25–40 ms of CPU a command: bench/sandbox-cost.ts, bench/sandbox-ssh-cost.ts; on the daemon's own host from
 * the build's path, on an SSH host of the build's architecture from the login's cache, sent over SFTP:
 * helper-cache.ts; it finds every other mount of a hidden path itself at each run; the bubblewrap and systemd-run
 * wrappers hide them from the probe's mount table: mounts.ts), `bwrap` (bubblewrap, in an
 * unprivileged user namespace, after `setpriv` when the login is root) and `systemd-run` (a transient service
 * as `nobody` with the Protect*= directives; root login on a host whose PID 1 is systemd). A host with none
 * runs nothing unapproved (fail closed).
 * Recipes checked on Debian 12 (../shared/TESTING-PEERS.md, "Confining a command"); directive names from
 * systemd.exec(5) and systemd.resource-control(5); bwrap options from bwrap(1).
 */
import { shellJoin, shellQuote } from "../inventory/target.ts";
import { plainAbsolutePath } from "./helper-cache.ts";
import { finishLoginFacts, hiddenHomes, loginProbeLines, loginRefusal, parseLoginLine, type LoginFacts, type LoginScratch } from "./login.ts";
import { aliasesOf, mountsOf, type MountEntry } from "./mounts.ts";
import { hasSeccompFilter, printfOctal, sandboxFilter } from "./seccomp.ts";

/**
 * How a host confines an unapproved command: `hostgate-confine` (the in-tree helper, native/confine-helper.c:
 * the bubblewrap recipe in one exec, for a root login: the daemon's own host, or an SSH host with the helper in
 * its login's cache), `bwrap`, `systemd-run`.
 */
export type SandboxMechanism = "hostgate-confine" | "bwrap" | "systemd-run";

/**
 * The network a confined command may use, granted by the policy that allowed it (Cedar `@network`):
 * `none` (default: only local Unix and netlink sockets), `loopback` (also 127.0.0.0/8 and ::1; systemd-run
 * only: bubblewrap cannot limit addresses), `any`.
 */
export type NetworkGrant = "none" | "loopback" | "any";
export const NETWORK_GRANTS: readonly NetworkGrant[] = ["none", "loopback", "any"];

/**
 * What one probe round trip learned about a host (as the login user sees it; through `sudo -n` as root when
 * `via_sudo` is set); the login's homes and groups: login.ts.
 */
export interface SandboxFacts extends LoginFacts {
  /** The login's uid (0: root). */
  uid: number;
  /** `uname -m`. */
  arch: string;
  /** Absolute paths of the programs found on PATH (absent: not found). */
  programs: {
    bwrap?: string; setpriv?: string; systemd_run?: string; prlimit?: string; timeout?: string;
    /** util-linux flock(1): the bubblewrap wrapper takes the run's uid lock with it (RUN_UID_POOL). */
    flock?: string;
    /**
     * The hostgate-confine helper (native/confine-helper.c, built from source by the daemon's build): never
     * from the probe; set by the daemon for its own host (app/sandbox.ts `local_helper`), after checking that
     * only root can change it (adapters/confine-helper.ts), and for an SSH host with a root login and the
     * build's architecture once the daemon's build is in the login's cache and passed the cache check
     * (app/sandbox.ts `remote_helper`, core/sandbox/helper-cache.ts).
     */
    confine_helper?: string;
  };
  /** PID 1 is systemd (/run/systemd/system exists). */
  systemd: boolean;
  /** The host's bwrap knows `--size` (a size cap for the next `--tmpfs`; newer bubblewrap: `bwrap --help` lists it). */
  bwrap_size?: boolean;
  /** The log-reader groups that exist on the host, with their gids. */
  log_groups: { name: string; gid: number }[];
  /** The host's `nobody` uid and gid (absent: no such user; 65534 is used). */
  nobody?: { uid: number; gid: number };
  /**
   * Why RUN_UID_POOL cannot be used on this host (empty or absent: it can): an account or group in it
   * (/etc/passwd, /etc/group), a subordinate id range over it (/etc/subuid, /etc/subgid), or login.defs letting
   * useradd/groupadd reach it (UID_MAX, GID_MAX), each as `file: what`. Commands then run as `nobody`.
   */
  uid_pool_clash?: string[];
  /**
   * The login's mount table (mountinfo order; mounts.ts): bubblewrap and systemd-run hide every
   * other mount that shows a hidden path (`aliasesOf`). As of the probe: a mount made later is seen at the next
   * probe (at most `ttl_ms` later, app/sandbox.ts); the helper reads the table at each run instead.
   */
  mounts?: MountEntry[];
  /** nsswitch.conf resolves users through nss-systemd (dynamic users have names, so D-Bus accepts them). */
  nss_systemd?: boolean;
  /**
   * The login shell runs POSIX sh syntax as the wrapper needs it (sh, dash, bash, ash, ksh by `$0`), so the
   * wrapper runs in it directly instead of in a second `sh`. zsh (NOMATCH), fish, csh… are not.
   */
  posix_shell?: boolean;
  /**
   * A memory cgroup the login may create a child in (root only; absent: none): cgroup v1's memory hierarchy
   * (`/sys/fs/cgroup/memory/<the login's cgroup>`) or, on a unified (v2) host, the login's cgroup when the
   * memory controller is enabled for its children (e.g. a container's root cgroup). Bubblewrap runs every
   * confined command of the host in one child of it, `hostgate-sandbox`, capped at SANDBOX_LIMITS.memory_bytes.
   */
  memcg?: { version: 1 | 2; dir: string };
  /**
   * cgroup v1's pids hierarchy at the login's cgroup, when root may create children there (absent: none, or a
   * unified v2 host, where a process is in one cgroup and the shared memory cgroup above takes that place).
   * The hostgate-confine helper gives each command a pids cgroup of its own under `<dir>/hostgate-sandbox`
   * instead of RLIMIT_NPROC, which counts every process of `nobody` on the host.
   */
  pidscg?: { dir: string };
}

/** A host's confinement: the mechanism (null: none, so nothing runs unapproved), why, and who commands run as. */
export interface HostSandbox {
  mechanism: SandboxMechanism | null;
  /** One line for get_host_details, doctor and refusals: what was found, or what is missing and how to fix it. */
  summary: string;
  /** The identity commands run as, in words (`nobody (uid 65534) + groups adm, systemd-journal`). */
  identity: string;
  facts: SandboxFacts;
}

/**
 * A host's sandbox in one line for people (get_host_details' `probe.sandbox`, doctor's sandbox checks): the
 * summary, then `; commands run as <identity>` when there is a mechanism (without one the summary says why).
 */
export function describeSandbox(sb: HostSandbox): string {
  return sb.mechanism ? `${sb.summary}; commands run as ${sb.identity}` : sb.summary;
}

/** Directories hostgate keeps its own state, keys and configuration in, on any host (empty inside the sandbox). */
export const OWN_STATE_DIRS: readonly string[] = ["/etc/hostgate", "/var/lib/hostgate", "/run/hostgate", "/var/log/hostgate"];
const EMPTY_DIRS: readonly string[] = ["/home", "/root", "/run/user", ...OWN_STATE_DIRS];
const NULL_FILES: readonly string[] = ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"];
const LOG_GROUPS: readonly string[] = ["adm", "systemd-journal"];

/**
 * The uids a root login's confined commands run as, one per run, its gid the same number (what systemd's
 * DynamicUser= does for a service): the hostgate-confine helper (`--uid-pool`) and the bubblewrap wrapper each
 * take the first uid, from a start that depends on their pid, whose lock file `lock_dir/<uid>` they can flock(2)
 * without waiting, and hold that lock until the command and everything it started are gone; the kernel drops it
 * with the holder's descriptor however the run ends (a killed run's uid is free again at once), so two runs at
 * once never share a uid, and no other process on the host has it: none can signal, ptrace or read
 * /proc/<pid>/{environ,mem} of the command without CAP_KILL or CAP_SYS_PTRACE (kill(2); ptrace(2), "Ptrace access
 * mode checking"). Nothing the uid could own outlives the run (a read-only view, private /tmp and /dev/shm, its
 * own IPC and PID namespaces), so the next run under it inherits nothing.
 * The range, 60578–61183 (606 uids), is the block systemd's table of ranges lists as unused between the host
 * users nspawn maps into containers (60514–60577) and DynamicUser= services (61184–65519)
 * (https://systemd.io/UIDS-GIDS/, "Summary"); it is above login.defs' UID_MAX and GID_MAX (60000 on Debian,
 * Ubuntu and Fedora: useradd/groupadd never assign it) and below SUB_UID_MIN (100000: subordinate ids of
 * rootless containers), and far from the 65536-multiples Kubernetes gives user-namespaced pods. The probe checks
 * each host (`SandboxFacts.uid_pool_clash`); a host where it clashes runs commands as `nobody`, and says so.
 * Names: dbus-daemon drops a connection whose uid NSS cannot name (so `systemctl status` would fail inside). Where
 * the host's NSS asks nss-systemd (`SandboxFacts.nss_systemd`) the run's uid and gid get names,
 * `hostgate-sandbox-<uid>`, as systemd userdb drop-in records in `userdb_dir` (nss-systemd(8)), written once per
 * uid and kept, each written whole under a temporary name and renamed (a reader never sees half of one);
 * elsewhere a command that talks to D-Bus (ConfineOptions.bus_client) runs as `nobody` instead.
 * The lock directory is root's, mode 0700 (both wrappers refuse to run with any other owner or mode), its lock
 * files 0600, under /run (a tmpfs: empty at boot); it is not hostgate's /run/hostgate,
 * which a system daemon's RuntimeDirectory= removes when it stops while runs still hold locks there.
 */
export const RUN_UID_POOL = { first: 60578, last: 61183, lock_dir: "/run/hostgate-uids", userdb_dir: "/run/userdb" } as const;
const PROBE_MARK = "hostgate-probe:";
/**
 * The probe's check of RUN_UID_POOL (awk, fields split on `:`): prints `pool_clash=<file>:<name>:<id>` for an
 * entry of /etc/passwd or /etc/group whose id is in the pool, a subordinate range of /etc/subuid or /etc/subgid
 * that overlaps it, and a UID_MAX/GID_MAX in /etc/login.defs at or above its first uid.
 */
const POOL_AWK = [
  `FILENAME ~ /login.defs$/ { split($0, w, " "); if ((w[1] == "UID_MAX" || w[1] == "GID_MAX") && w[2] + 0 >= a) print "hostgate-probe:pool_clash=" FILENAME ":" w[1] ":" w[2]; next }`,
  `FILENAME ~ /sub[ug]id$/ { if ($2 + 0 <= b && $2 + $3 > a) print "hostgate-probe:pool_clash=" FILENAME ":" $1 ":" $2; next }`,
  `$3 ~ /^[0-9]+$/ && $3 + 0 >= a && $3 + 0 <= b { print "hostgate-probe:pool_clash=" FILENAME ":" $1 ":" $3 }`,
].join(" ");
/**
 * Resource limits of a confined command, so a fork bomb or a runaway allocation cannot take the host down:
 * systemd-run caps the unit's tasks (TasksMax) and memory (MemoryMax, `unit_memory_bytes`) where the host's
 * cgroup controllers allow (not verified here: the test container has no pids controller delegated, 398 of
 * 400 forks ran); bubblewrap gets an address-space cap per process (RLIMIT_AS, the shell's `ulimit -v`) and
 * `processes` as RLIMIT_NPROC, set by the wrapper shell while still root, before setpriv: the kernel (5.14+)
 * then counts it in the user namespace bwrap creates and again for the unprivileged uid on the host (measured
 * in test/security/sandbox-attack.test.ts: a fork loop stops at the limit). Total memory under bubblewrap:
 * where the probe found a memory cgroup the root login may write (`SandboxFacts.memcg`), all the host's
 * confined commands together share one cgroup capped at `memory_bytes` (the kernel's OOM killer then ends
 * the largest process inside it, not a host process); elsewhere only the per-process cap holds.
 * RLIMIT_NPROC counts every process of the uid on the host (other confined commands, services running as
 * nobody); the hostgate-confine helper therefore uses a pids cgroup per command instead, where cgroup v1's
 * pids hierarchy is writable (`SandboxFacts.pidscg`; tested in sandbox-attack.test.ts).
 * `tmp_bytes`: the size of each private writable tmpfs (`/tmp`, `/var/tmp`) under bubblewrap and hostgate-confine
 * (tmpfs `size=`): their pages are memory, counted in the memory cgroup where there is one, but a host without one
 * had no cap at all (the kernel's default is half of RAM per tmpfs; docs/security/confine-helper-review.md).
 * Generous for diagnostics (a `ps`/`du`/`grep -r` pipeline uses a handful of processes and megabytes).
 */
export const SANDBOX_LIMITS = { processes: 256, address_space_bytes: 4 * 1024 ** 3, unit_memory_bytes: 2 * 1024 ** 3, memory_bytes: 1024 ** 3, tmp_bytes: 256 * 1024 ** 2 } as const;

/** The cgroup under `SandboxFacts.memcg.dir` that every bubblewrap-confined command of a host joins. */
export const MEMCG_NAME = "hostgate-sandbox";

/**
 * The probe, one shell line for the host's login shell: prints `hostgate-probe:key=value` lines (uid, arch,
 * programs, systemd, log groups, nobody). Fixed text: nothing in it comes from a model.
 */
export function probeCommand(): string {
  const m = PROBE_MARK;
  return [
    `echo "${m}uid=$(id -u)"`,
    `echo "${m}arch=$(uname -m)"`,
    `echo "${m}home=$HOME"`,
    ...loginProbeLines(m),
    `for p in bwrap setpriv systemd-run prlimit timeout flock; do x=$(command -v "$p" 2>/dev/null) && echo "${m}has=$p:$x"; done`,
    `[ -d /run/systemd/system ] && echo "${m}systemd=1"`,
    `command -v bwrap >/dev/null 2>&1 && bwrap --help 2>&1 | grep -q -e --size && echo "${m}bwrap_size=1"`,
    `for g in ${LOG_GROUPS.join(" ")}; do x=$(getent group "$g" 2>/dev/null | cut -d: -f3) && [ -n "$x" ] && echo "${m}group=$g:$x"; done`,
    `x=$(id -u nobody 2>/dev/null) && echo "${m}nobody=$x:$(id -g nobody)"`,
    `grep -qs '^passwd:.*systemd' /etc/nsswitch.conf && echo "${m}nss_systemd=1"`,
    // The mount table (device, root, point: mounts.ts), to find other mounts of hidden paths.
    `sed 's/^/${m}mnt=/' /proc/self/mountinfo 2>/dev/null`,
    // RUN_UID_POOL against the host's accounts, groups, subordinate ranges and useradd's limits (files that exist).
    `set --; for f in /etc/passwd /etc/group /etc/subuid /etc/subgid /etc/login.defs; do [ -r "$f" ] && set -- "$@" "$f"; done; [ $# -gt 0 ] && awk -F: -v a=${RUN_UID_POOL.first} -v b=${RUN_UID_POOL.last} '${POOL_AWK}' "$@" 2>/dev/null`,
    `case \${0##*/} in sh|-sh|dash|-dash|bash|-bash|ash|-ash|ksh|-ksh) echo "${m}posix_shell=1";; esac`,
    // A memory cgroup root may create a child in: unified (v2) with the memory controller on for children,
    // else v1's memory hierarchy.
    `if [ -f /sys/fs/cgroup/cgroup.controllers ]; then c=/sys/fs/cgroup$(sed -n 's/^0::\\(.*\\)$/\\1/p' /proc/self/cgroup); c=\${c%/}; grep -qsw memory "$c/cgroup.subtree_control" && [ -w "$c" ] && echo "${m}memcg=2:$c"; else c=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory:\\(.*\\)$/\\1/p' /proc/self/cgroup); c=\${c%/}; [ -f "$c/memory.limit_in_bytes" ] && [ -w "$c" ] && echo "${m}memcg=1:$c"; c=/sys/fs/cgroup/pids$(sed -n 's/^[0-9]*:pids:\\(.*\\)$/\\1/p' /proc/self/cgroup); c=\${c%/}; [ -f "$c/cgroup.procs" ] && [ -w "$c" ] && echo "${m}pidscg=1:$c"; fi`,
    "true",
  ].join("; ");
}

/**
 * Reads the probe's output. Throws Error (with the offending text) when the uid or arch line is missing or
 * malformed: a host that answers something else (a forced command, a restricted shell) is not probed.
 */
export function parseProbe(stdout: string): SandboxFacts {
  const facts: SandboxFacts = { uid: -1, arch: "", programs: {}, systemd: false, log_groups: [] };
  const scratch: LoginScratch = {};
  const mountLines: string[] = [];
  for (const line of stdout.split("\n")) {
    if (!line.startsWith(PROBE_MARK)) continue;
    const [key, value] = splitOnce(line.slice(PROBE_MARK.length), "=");
    if (parseLoginLine(key, value, facts, scratch)) continue;
    if (key === "uid" && /^\d+$/.test(value)) facts.uid = Number(value);
    else if (key === "arch" && /^[\w.-]{1,32}$/.test(value)) facts.arch = value;
    else if (key === "home" && plainAbsolutePath(value)) facts.home = value;
    else if (key === "systemd") facts.systemd = value === "1";
    else if (key === "nss_systemd") facts.nss_systemd = value === "1";
    else if (key === "posix_shell") facts.posix_shell = value === "1";
    else if (key === "bwrap_size") facts.bwrap_size = value === "1";
    else if (key === "has") {
      const [name, path] = splitOnce(value, ":");
      if (!path.startsWith("/") || /\s/.test(path)) continue;
      if (name === "bwrap") facts.programs.bwrap = path;
      else if (name === "setpriv") facts.programs.setpriv = path;
      else if (name === "systemd-run") facts.programs.systemd_run = path;
      else if (name === "prlimit") facts.programs.prlimit = path;
      else if (name === "timeout") facts.programs.timeout = path;
      else if (name === "flock") facts.programs.flock = path;
    } else if (key === "group") {
      const [name, gid] = splitOnce(value, ":");
      if (LOG_GROUPS.includes(name) && /^\d+$/.test(gid)) facts.log_groups.push({ name, gid: Number(gid) });
    } else if (key === "memcg") {
      const [version, dir] = splitOnce(value, ":");
      if ((version === "1" || version === "2") && cgroupPath(dir)) facts.memcg = { version: version === "1" ? 1 : 2, dir };
    } else if (key === "pidscg") {
      const [version, dir] = splitOnce(value, ":");
      if (version === "1" && cgroupPath(dir)) facts.pidscg = { dir };
    } else if (key === "mnt") {
      mountLines.push(value);
    } else if (key === "pool_clash") {
      const m = /^(\/[\w./-]{1,200}):([^\s:]{1,64}):(\d{1,10})$/.exec(value);
      if (m) (facts.uid_pool_clash ??= []).push(`${m[1]}: ${m[2]} ${m[3]}`);
    } else if (key === "nobody") {
      const [uid, gid] = splitOnce(value, ":");
      if (/^\d+$/.test(uid) && /^\d+$/.test(gid)) facts.nobody = { uid: Number(uid), gid: Number(gid) };
    }
  }
  finishLoginFacts(facts, scratch);
  if (mountLines.length > 0) facts.mounts = mountsOf(mountLines);
  if (facts.uid < 0 || facts.arch === "") throw new Error(`the sandbox probe got no uid/arch from the host (it answered ${JSON.stringify(stdout.slice(0, 200))})`);
  return facts;
}

/** A path under /sys/fs/cgroup of plain names, without dot segments (what the probe may report). */
function cgroupPath(dir: string): boolean {
  return /^\/sys\/fs\/cgroup(\/[\w.@:+-]+)*$/.test(dir) && !/\/\.\.?(\/|$)/.test(dir);
}

function splitOnce(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ""] : [s.slice(0, i), s.slice(i + 1)];
}

function unprivileged(f: SandboxFacts): { uid: number; gid: number } {
  return f.nobody && f.nobody.uid !== 0 ? f.nobody : { uid: 65534, gid: 65534 };
}

/**
 * Whether a root login's commands on this host get a uid of their own per run (RUN_UID_POOL): the pool does not
 * clash with the host's accounts, and under bubblewrap flock(1) is there to take the lock. With `o`, for one
 * command: not one that talks to D-Bus on a host without nss-systemd to name the uid (RUN_UID_POOL, "Names").
 */
function perRunUid(f: SandboxFacts, mechanism: "hostgate-confine" | "bwrap", o?: ConfineOptions): boolean {
  if (o?.bus_client === true && f.nss_systemd !== true) return false;
  return f.uid === 0 && (f.uid_pool_clash ?? []).length === 0 && (mechanism === "hostgate-confine" || f.programs.flock !== undefined);
}

/** The identity a root login's helper or bubblewrap commands get, in words (HostSandbox.identity). */
function rootIdentity(f: SandboxFacts, mechanism: "hostgate-confine" | "bwrap"): string {
  const groups = f.log_groups.length > 0 ? ` + groups ${f.log_groups.map((g) => g.name).join(", ")}` : "";
  const nobody = unprivileged(f);
  if (perRunUid(f, mechanism)) {
    const bus = f.nss_systemd === true ? "" : `; commands that use D-Bus (systemctl, busctl…) run as nobody (uid ${nobody.uid}): the host's NSS has no nss-systemd to name a per-run uid, and dbus-daemon refuses a uid it cannot name`;
    return `a uid of its own per run (${RUN_UID_POOL.first}–${RUN_UID_POOL.last}, gid the same)${groups}${bus}`;
  }
  const why = (f.uid_pool_clash ?? []).length > 0 ? `the per-run uid range ${RUN_UID_POOL.first}–${RUN_UID_POOL.last} clashes with ${f.uid_pool_clash!.join(", ")}` : "flock (util-linux) is missing, needed to hold a per-run uid";
  return `nobody (uid ${nobody.uid}, gid ${nobody.gid})${groups}; not a uid of its own per run: ${why}, so host processes running as nobody can signal it`;
}

/** What a non-root login's commands run as (it cannot change uid), in words. */
function loginIdentity(f: SandboxFacts): string {
  const kept = (f.login_groups ?? []).map((g) => g.name);
  return `the login user itself (uid ${f.uid}${kept.length > 0 ? `, keeping groups ${kept.join(", ")}` : ""}; on the daemon's own host the daemon's user): a non-root login cannot change uid, so the login's other processes, and its other commands running at the same time, can signal it (and, under bubblewrap, ptrace it); log in as root, or set become: sudo, for a uid of its own per run`;
}

/**
 * The mechanisms this host could use, most preferred first: hostgate-confine for a root login when the facts
 * name the helper (the daemon's own host, or an SSH host whose cache holds the daemon's build), then bubblewrap
 * (≈ 10–30 ms a command, keeps the host's sockets and processes visible) when present (root also needs setpriv
 * to drop to the run's uid or `nobody` first: bwrap's own `--uid` maps back to root outside its namespace), then
 * systemd-run for a root login on a systemd host. A non-root login (not through sudo) gets none when it keeps a
 * supplementary group neither the log readers' nor in `opts.accept_login_groups`, or its home is a system
 * directory (login.ts `loginRefusal`). `failures` drops mechanisms whose check run failed, with the reason; for
 * hostgate-confine without `programs.confine_helper` it is why the helper could not be placed. The reason is
 * said in the summary of the mechanism chosen instead (get_host_details, doctor).
 */
export function chooseSandbox(f: SandboxFacts, failures: Partial<Record<SandboxMechanism, string>> = {}, opts: ChooseOptions = {}): HostSandbox {
  const root = f.uid === 0;
  const groups = f.log_groups.map((g) => g.name);
  const nobody = unprivileged(f);
  const missing: string[] = [];
  // A non-root login keeps its supplementary groups and its home is its own (login.ts): refused before any
  // mechanism is chosen when either would let a command reach what the sandbox is meant to keep out.
  const refusal = loginRefusal(f, LOG_GROUPS, opts.accept_login_groups ?? []);
  if (refusal !== null) {
    return { mechanism: null, summary: `no sandbox can enforce an unprivileged identity here: ${refusal}. Unapproved commands are refused here (fail closed)`, identity: "none", facts: f };
  }
  const sudo = f.via_sudo ? `through sudo -n (become: sudo; the login is uid ${f.via_sudo.login_uid}), then ` : "";
  if (root && f.programs.confine_helper && !failures["hostgate-confine"]) {
    return {
      mechanism: "hostgate-confine",
      summary: `hostgate-confine (${f.programs.confine_helper}) to ${perRunUid(f, "hostgate-confine") ? "a uid of its own per run" : `uid ${nobody.uid}`}: read-only filesystem, private /tmp, own PID and user namespace, network per policy, in one exec`,
      identity: rootIdentity(f, "hostgate-confine"),
      facts: f,
    };
  }
  // Why the helper is not used (an SSH host: not root, another architecture, a cache that failed its check,
  // a check run that failed), said in whichever mechanism's summary follows.
  // A failure with the helper in the facts is its check run's; without, why it could not be placed.
  const helperWhy = failures["hostgate-confine"] ? `hostgate-confine ${f.programs.confine_helper ? "failed its check run" : "not used"}: ${failures["hostgate-confine"]}` : "";
  const helperNote = helperWhy ? `; ${helperWhy}` : "";
  if (helperWhy) missing.push(helperWhy);
  if (!f.programs.bwrap) missing.push("bubblewrap (bwrap) is not installed");
  else if (root && !f.programs.setpriv) missing.push("setpriv (util-linux) is missing, needed to drop root before bwrap");
  else if (failures.bwrap) missing.push(`bwrap failed its check run: ${failures.bwrap}`);
  else {
    return {
      mechanism: "bwrap",
      summary: `${sudo}bubblewrap (${f.programs.bwrap})${root ? ` after setpriv to ${perRunUid(f, "bwrap") ? "a uid of its own per run" : `uid ${nobody.uid}`}` : ` as the login uid ${f.uid}`}: read-only filesystem, private /tmp, own PID namespace, network per policy${helperNote}`,
      identity: root ? rootIdentity(f, "bwrap") : loginIdentity(f),
      facts: f,
    };
  }
  if (!f.systemd) missing.push("PID 1 is not systemd (no systemd-run sandbox)");
  else if (!f.programs.systemd_run) missing.push("systemd-run is not on PATH");
  else if (!root) missing.push("systemd-run needs a root login to start a confined service (non-root logins need bubblewrap)");
  else if (failures["systemd-run"]) missing.push(`systemd-run failed its check run: ${failures["systemd-run"]}`);
  else {
    return {
      mechanism: "systemd-run",
      summary: `${sudo}systemd-run (${f.programs.systemd_run}): a transient service as ${f.nss_systemd ? "a dynamic user" : `uid ${nobody.uid}`}, ProtectSystem=strict, ProtectHome, private /tmp, network per policy${helperNote}`,
      identity: `${f.nss_systemd ? "a dynamic user" : `nobody (uid ${nobody.uid}, gid ${nobody.gid})`}${groups.length > 0 ? ` + groups ${groups.join(", ")}` : ""}`,
      facts: f,
    };
  }
  return {
    mechanism: null,
    summary: `no sandbox: ${missing.join("; ")}. Unapproved commands are refused here (fail closed): install bubblewrap on the host, or approve each command as a plan`,
    identity: "none",
    facts: f,
  };
}

/** Host-wide choices of the operator for chooseSandbox. */
export interface ChooseOptions {
  /**
   * Supplementary groups (names) a non-root login may keep inside bubblewrap (config `exec.accept_login_groups`):
   * without it, a login in any group but the log readers' has no sandbox (login.ts `loginRefusal`).
   */
  accept_login_groups?: readonly string[];
}

/** Per-command options: the network the policy granted, extra paths to hide (the local daemon's own dirs), the time limit. */
export interface ConfineOptions {
  network: NetworkGrant;
  /** Absolute directories made empty inside the sandbox, besides OWN_STATE_DIRS (bwrap: only those that exist). */
  hide_dirs?: readonly string[];
  /** Absolute files replaced by /dev/null inside the sandbox. */
  hide_files?: readonly string[];
  /** Wall-time limit in seconds, enforced by the host too where the mechanism can (systemd RuntimeMaxSec). */
  timeout_sec: number;
  /** A name unique to this run (systemd unit name suffix), `[a-z0-9-]`. */
  run_id: string;
  /**
   * With network `none`: keep the host's network namespace so `ss`/`ip`/`netstat` see the host's sockets and
   * interfaces, and refuse AF_UNIX sockets instead (seccomp or RestrictAddressFamilies=AF_NETLINK), so the host's
   * abstract Unix sockets stay out of reach. Set by {@link wantsHostNetworkView}. Without it (default) the
   * command gets a network namespace of its own and path Unix sockets (D-Bus for `systemctl`) work. Where no
   * seccomp filter exists for the host's architecture it is ignored (own namespace).
   */
  host_network_view?: boolean;
  /**
   * The command talks to D-Bus (set by {@link usesDbus}): on a host without nss-systemd a root login's command
   * then runs as `nobody` instead of a uid of its own per run (RUN_UID_POOL, "Names").
   */
  bus_client?: boolean;
}

/** Programs whose job is to show the host's network state (sockets, interfaces, routes) and that need no Unix socket. */
const NETWORK_VIEW_PROGRAMS: ReadonlySet<string> = new Set(["ss", "netstat", "ip", "nstat", "ifconfig", "route", "arp", "lsof"]);
/** Programs that are D-Bus clients (the system bus: systemd's tools, dbus-send, gdbus). */
const DBUS_PROGRAMS: ReadonlySet<string> = new Set(["systemctl", "busctl", "loginctl", "hostnamectl", "timedatectl", "localectl", "resolvectl", "networkctl", "systemd-analyze", "systemd-resolve", "dbus-send", "gdbus"]);

/**
 * Whether a command talks to D-Bus (ConfineOptions.bus_client): one of its programs (basenames, as for
 * wantsHostNetworkView) is a D-Bus client. A routing choice only: a wrong guess makes a D-Bus call fail on a
 * host without nss-systemd, or runs a command as nobody instead of a uid of its own.
 */
export function usesDbus(programs: readonly string[]): boolean {
  return programs.some((p) => DBUS_PROGRAMS.has(p.slice(p.lastIndexOf("/") + 1)));
}

/** Programs that talk to a daemon over a Unix socket (the D-Bus clients, journald, container engines). */
const UNIX_SOCKET_PROGRAMS: ReadonlySet<string> = new Set([...DBUS_PROGRAMS, "logger", "docker", "podman", "ctr", "crictl", "nft"]);

/**
 * Whether a command should run with the host's network view (see ConfineOptions.host_network_view): one of its
 * programs shows network state and none needs a Unix socket. A routing choice only: both ways the host's
 * abstract Unix sockets and every IP network stay out of reach, so a wrong guess makes a command fail (an empty
 * `ss`, a `systemctl` that cannot connect), never escape. `programs`: the command names the risk engine found
 * (basenames; a dynamic name counts as neither).
 */
export function wantsHostNetworkView(programs: readonly string[]): boolean {
  const names = programs.map((p) => p.slice(p.lastIndexOf("/") + 1));
  return names.some((n) => NETWORK_VIEW_PROGRAMS.has(n)) && !names.some((n) => UNIX_SOCKET_PROGRAMS.has(n));
}

/** A confined command line for the host's login shell, and what kills it from another session. */
export interface ConfinedCommand {
  command: string;
  /** A shell line that ends the run from a second channel (systemd-run's unit), or null (killing the group suffices). */
  kill_command: string | null;
}

/** Why a command cannot be confined on this host with these options (the caller routes it to a plan). */
export class CannotConfine extends Error {}

/**
 * Why `sb` cannot confine a command with network `grant`, or null when it can: the host has no mechanism, or
 * the grant is `loopback` under bubblewrap (which can give no network or all of it, not loopback only).
 */
export function unconfinableReason(sb: HostSandbox, grant: NetworkGrant): string | null {
  if (!sb.mechanism) return sb.summary;
  if (sb.mechanism !== "systemd-run" && grant === "loopback") {
    return `the policy grants loopback network, which ${sb.mechanism === "bwrap" ? "bubblewrap" : sb.mechanism} cannot limit to loopback addresses (it can give none or all): grant \`any\` for this host, or approve the command as a plan`;
  }
  return null;
}

/**
 * Wraps `argv` (e.g. `["sh", "-c", line]`) for `sb`'s mechanism. The result is one line for the login shell;
 * every word from the caller is quoted by `shellQuote`. Throws CannotConfine when the host has no mechanism, or
 * the grant cannot be enforced there (`loopback` under bubblewrap).
 */
export function confine(argv: readonly string[], sb: HostSandbox, o: ConfineOptions): ConfinedCommand {
  if (!/^[a-z0-9-]{1,64}$/.test(o.run_id)) throw new Error(`confine: bad run_id ${JSON.stringify(o.run_id)}`);
  for (const p of [...(o.hide_dirs ?? []), ...(o.hide_files ?? [])]) {
    if (!p.startsWith("/")) throw new Error(`confine: hidden path ${JSON.stringify(p)} is not absolute`);
  }
  const why = unconfinableReason(sb, o.network);
  if (why !== null) throw new CannotConfine(why);
  const c = sb.mechanism === "hostgate-confine" ? helperCommand(argv, sb, o) : sb.mechanism === "bwrap" ? bwrapCommand(argv, sb, o) : systemdRunCommand(argv, sb, o);
  return sb.facts.via_sudo ? throughSudo(c, sb.facts) : c;
}

/**
 * A wrapper for a non-root login on a `become: sudo` host (`SandboxFacts.via_sudo`): the root wrapper runs
 * through `sudo -n` (fixed argv; the command is one quoted word), so the chain starts as root and drops to the
 * unprivileged identity with no login group. The login can kill sudo (its real uid is the login's) but not the
 * root processes below it, so each link of the chain dies with its parent: setpriv's `--pdeathsig KILL` for the
 * wrapper shell (parent: sudo) and for the deadline's `timeout` (bwrapCommand), bubblewrap's `--die-with-parent`
 * below that; systemd-run's unit is stopped by its kill line, through sudo as well.
 */
function throughSudo(c: ConfinedCommand, f: SandboxFacts): ConfinedCommand {
  const dies = f.programs.setpriv ? `${shellQuote(f.programs.setpriv)} --pdeathsig KILL -- ` : "";
  return {
    command: `exec sudo -n -- ${dies}sh -c ${shellQuote(c.command)}`,
    kill_command: c.kill_command === null ? null : `sudo -n -- sh -c ${shellQuote(c.kill_command)}`,
  };
}

/** The directories a wrapper empties: the fixed ones, the caller's, and the homes outside them (login.ts). */
function hiddenDirs(f: SandboxFacts, o: ConfineOptions): string[] {
  return [...EMPTY_DIRS, ...(o.hide_dirs ?? []), ...hiddenHomes(f, EMPTY_DIRS)];
}

/**
 * The seccomp filter of a confined command (seccomp.ts), whatever the network grant: no namespaces, keyrings,
 * userfaultfd, bpf, perf events or foreign ABIs; without network also only local sockets (`netlink` alone with
 * the host's network view). Null on an architecture without a filter (the namespaces and the read-only view
 * still hold; the review lists what that leaves: docs/security/confine-helper-review.md). `form`: how the
 * wrapper carries it, `hex` (hostgate-confine's `--seccomp HEX`) or `octal` (a printf format for bubblewrap's
 * `--seccomp 3`, seccomp.ts printfOctal).
 */
function commandFilter(arch: string, network: NetworkGrant, hostView: boolean, form: "hex" | "octal"): string | null {
  if (!hasSeccompFilter(arch)) return null;
  const sockets = network !== "none" ? "all" : hostView ? "netlink" : "local";
  const key = `${arch} ${sockets} ${form}`;
  let text = ENCODED_FILTERS.get(key);
  if (text === undefined) {
    const bytes = sandboxFilter(arch, { sockets });
    text = form === "hex" ? Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("") : printfOctal(bytes);
    ENCODED_FILTERS.set(key, text);
  }
  return text;
}

/**
 * The filters as the wrappers carry them, by architecture, socket rule and form: a pure function of those three
 * (at most 2 × 3 × 2 entries), built once per process instead of once per host and command (issue 20: a
 * 20-host fan-out assembled and encoded it 20 times).
 */
const ENCODED_FILTERS = new Map<string, string>();

/**
 * The wrapper of the hostgate-confine mechanism: the rlimits and the memory cgroup by the shell's builtins, as
 * for bubblewrap (see `bwrapCommand`), then one exec of the helper, which makes the namespaces, the read-only
 * view, the hidden paths (it resolves their symlinks and skips missing ones), takes the run's uid from
 * RUN_UID_POOL (`--uid-pool`; `nobody` where the pool cannot be used) and drops to it with the log readers' groups, and enforces the time limit itself (native/confine-helper.c).
 */
function helperCommand(argv: readonly string[], sb: HostSandbox, o: ConfineOptions): ConfinedCommand {
  const f = sb.facts;
  const hostView = o.network === "none" && o.host_network_view === true && hasSeccompFilter(f.arch);
  const filter = commandFilter(f.arch, o.network, hostView, "hex");
  const nobody = unprivileged(f);
  const who = perRunUid(f, "hostgate-confine", o)
    ? ["--uid-pool", `${RUN_UID_POOL.first}-${RUN_UID_POOL.last}`, "--uid-locks", RUN_UID_POOL.lock_dir, ...(f.nss_systemd === true ? ["--userdb", RUN_UID_POOL.userdb_dir] : [])]
    : ["--uid", String(nobody.uid), "--gid", String(nobody.gid)];
  // Its own pids cgroup where the host has one (the process limit then counts this command alone), else
  // RLIMIT_NPROC as under bubblewrap.
  const pids = f.pidscg ? ["--pids-cgroup", `${f.pidscg.dir}/${MEMCG_NAME}`, "--pids-max", String(SANDBOX_LIMITS.processes)] : [];
  const words = [
    ...who, ...pids,
    ...(f.log_groups.length > 0 ? ["--groups", f.log_groups.map((g) => g.gid).join(",")] : []),
    ...(o.timeout_sec > 0 ? ["--timeout", String(o.timeout_sec)] : []),
    // Network `none`: the filter refuses every IP family; the host's abstract Unix sockets are cut by a Landlock
    // scope (the helper falls back to a network namespace of its own where the kernel has none). Without a
    // filter (another architecture) the namespace does it all. A network grant keeps the host's namespace, and
    // the abstract sockets are scoped where Landlock can (ABI 6+; elsewhere they stay reachable: the review).
    ...(o.network === "none" && !hostView ? [filter ? "--scope-unix" : "--unshare-net"] : o.network !== "none" ? ["--scope-unix-if-able"] : []),
    "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs-size", String(SANDBOX_LIMITS.tmp_bytes),
    ...hiddenDirs(f, o).flatMap((d) => ["--hide-dir", d]),
    ...[...NULL_FILES, ...(o.hide_files ?? [])].flatMap((p) => ["--hide-file", p]),
    ...(filter ? ["--seccomp", filter] : []),
  ];
  const script = [
    ...(f.pidscg ? [] : [`ulimit -u ${SANDBOX_LIMITS.processes} 2>/dev/null || ulimit -p ${SANDBOX_LIMITS.processes}`]),
    `L=; ulimit -v ${SANDBOX_LIMITS.address_space_bytes / 1024} 2>/dev/null${f.programs.prlimit ? ` || L=${shellQuote(`${f.programs.prlimit} --as=${SANDBOX_LIMITS.address_space_bytes} --`)}` : ""}`,
    ...memcgJoin(f),
    // The host keys by a glob the shell expands (an unmatched pattern stays literal; the helper skips it).
    `set --; for f in /etc/ssh/*_key; do set -- "$@" --hide-file "$f"; done`,
    `exec $L ${shellQuote(f.programs.confine_helper!)} ${shellJoin(words)} "$@" -- ${shellJoin(argv)} </dev/null`,
  ].join("; ");
  return { command: f.posix_shell ? script : `exec sh -c ${shellQuote(script)}`, kill_command: null };
}

function bwrapCommand(argv: readonly string[], sb: HostSandbox, o: ConfineOptions): ConfinedCommand {
  const f = sb.facts;
  const hostView = o.network === "none" && o.host_network_view === true && hasSeccompFilter(f.arch);
  const filter = commandFilter(f.arch, o.network, hostView, "octal");
  const fixed = [
    "--ro-bind", "/", "/", "--dev", "/dev", "--ro-bind", "/proc", "/proc",
    // Each private tmpfs capped at SANDBOX_LIMITS.tmp_bytes where this bwrap can (`--size`); an older one has none.
    ...["/tmp", "/var/tmp"].flatMap((d) => [...(f.bwrap_size ? ["--size", String(SANDBOX_LIMITS.tmp_bytes)] : []), "--tmpfs", d]),
    "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
    "--die-with-parent", "--new-session", "--cap-drop", "ALL",
    // Network `none`: a network namespace of its own (only `lo`). Abstract Unix sockets are per network
    // namespace and carry no file permissions, so in the host's namespace a confined command could talk to any
    // daemon listening on one (found by test/security/sandbox-attack.test.ts). Path sockets (D-Bus for
    // `systemctl`, journald) still work; `ss` then lists only this namespace's sockets (none).
    // With the host's network view (ss, ip) the namespace stays and the filter refuses AF_UNIX instead.
    ...(o.network === "none" && !hostView ? ["--unshare-net"] : []),
  ];
  // Every other mount that shows a hidden path (a second bind mount of /home…: mounts.ts), in both loops: the
  // host decides whether it is a directory (emptied) or a file (/dev/null), as for the helper. The host keys'
  // glob follows their directory to its other mounts.
  const hidden = hiddenDirs(f, o);
  const hiddenFiles = [...NULL_FILES, ...(o.hide_files ?? [])];
  const aliases = otherMounts(f, [...hidden, ...hiddenFiles]);
  const keyGlobs = ["/etc/ssh", ...otherMounts(f, ["/etc/ssh"])].map((d) => `${shellQuote(d)}/*_key`);
  const dirs = [...hidden, ...aliases].map(shellQuote).join(" ");
  const files = [...hiddenFiles, ...aliases].map(shellQuote).join(" ");
  const nobody = unprivileged(f);
  const pool = perRunUid(f, "bwrap", o);
  const drop = f.uid === 0
    ? `${shellQuote(f.programs.setpriv!)} --reuid ${pool ? '"$U"' : nobody.uid} --regid ${pool ? '"$U"' : nobody.gid} ${f.log_groups.length > 0 ? `--groups ${f.log_groups.map((g) => g.gid).join(",")}` : "--clear-groups"} --no-new-privs `
    : "";
  // The host ends the run at its time limit too, not only the daemon (which may die, or lose the connection
  // before its kill channel runs): coreutils timeout, in the foreground so the executors' group kill still
  // reaches everything; killing bwrap ends its PID namespace.
  const deadline = f.programs.timeout && o.timeout_sec > 0 ? `${shellQuote(f.programs.timeout)} --foreground -s KILL ${o.timeout_sec} ` : "";
  // Through sudo (throughSudo) the deadline's timeout dies with the wrapper shell, which dies with sudo.
  const dies = f.via_sudo && f.programs.setpriv ? `${shellQuote(f.programs.setpriv)} --pdeathsig KILL ` : "";
  const run = `${dies}${deadline}$L ${drop}${shellQuote(f.programs.bwrap!)} "$@"${filter ? " --seccomp 3" : ""} -- ${shellJoin(argv)}`;
  // A POSIX shell runs the wrapper: the login shell itself when the probe found it is one (no exec), else
  // `exec sh -c` whatever the login shell is (zsh, fish…); `exec` keeps the session leader's pid.
  // Hidden directories by their physical path: bwrap cannot mount over a path whose parent is a symlink (it
  // fails "Can't mkdir"), so each is resolved first; `cd -P` in the wrapper itself costs no fork (readlink -f
  // still covers a final symlink the login cannot enter). The login's working directory is restored after.
  const script = [
    `o=$PWD; set -- ${shellJoin(fixed)}`,
    `for d in ${dirs}; do [ -L "$d" ] && d=$(readlink -f "$d"); cd -P -- "$d" 2>/dev/null && d=$PWD; [ -d "$d" ] && set -- "$@" --tmpfs "$d"; done; cd -- "$o" 2>/dev/null || cd /`,
    // One process limit for everything the command starts (a fork bomb ends at it instead of at the host's
    // pid table): RLIMIT_NPROC, inherited across setpriv and bwrap; the kernel counts it per user namespace and
    // again for the unprivileged uid on the host. `-u` in bash, busybox and ksh, `-p` in dash.
    `ulimit -u ${SANDBOX_LIMITS.processes} 2>/dev/null || ulimit -p ${SANDBOX_LIMITS.processes}`,
    // The address-space cap per process (RLIMIT_AS, KiB), set while root so the command cannot raise it: the
    // shell's builtin (dash, bash, busybox, ksh) costs no exec; else prlimit (util-linux) where present.
    `L=; ulimit -v ${SANDBOX_LIMITS.address_space_bytes / 1024} 2>/dev/null${f.programs.prlimit ? ` || L=${shellQuote(`${f.programs.prlimit} --as=${SANDBOX_LIMITS.address_space_bytes} --`)}` : ""}`,
    ...memcgJoin(f),
    `for f in ${files} ${keyGlobs.join(" ")}; do [ -f "$f" ] && set -- "$@" --ro-bind /dev/null "$f"; done`,
    ...(pool ? uidLock(f.programs.flock!, f.nss_systemd === true) : []),
    // With a per-run uid the wrapper stays (no exec) as the holder of its lock, and the chain starts without the
    // lock's descriptor (9>&-): the command must not be able to release it (flock -u) and so share its uid.
    filter ? `printf '${filter}' | ${run} 3<&0 </dev/null${pool ? " 9>&-" : ""}` : `${pool ? "" : "exec "}${run} </dev/null${pool ? " 9>&-" : ""}`,
  ].join("; ");
  return { command: f.posix_shell ? script : `exec sh -c ${shellQuote(script)}`, kill_command: null };
}

/**
 * Shell lines (run as root, before setpriv) that take the run's uid from RUN_UID_POOL into `$U` under
 * bubblewrap: the lock directory made root's (mode 0700) when missing, and refused (exit 125, saying the path,
 * what it is and how to fix it) unless it is a directory, not a link, that root owns with mode 0700 exactly, as the
 * hostgate-confine helper requires (native/confine-helper.c `allocate_uid`): any access for others would let any
 * user open the lock files and flock a uid away. The mode is read with `ls -ldn` (POSIX; the shell has no builtin
 * for it): one exec per run. Then from `$$` (the wrapper's pid) modulo the pool's size, the first uid whose lock
 * file the wrapper can open as descriptor 9 and flock(1) without waiting; a missing lock file is first made 0600
 * in a subshell with umask 077 (once per uid and boot), so the command keeps the login's umask. The wrapper's
 * descriptor holds the lock until the wrapper ends, after the chain it waits for (hostgate-confine does the same
 * in C). One exec of flock per run when the first uid is free. When none is, the command does not run (exit 125).
 */
function uidLock(flock: string, names: boolean): string[] {
  const { first, last, lock_dir, userdb_dir } = RUN_UID_POOL;
  const d = shellQuote(lock_dir);
  const u = shellQuote(userdb_dir);
  // The userdb records of the uid (RUN_UID_POOL, "Names"), by name and by number: each written whole to a
  // temporary name in the same directory (`<record>.<wrapper pid>`, which nss-systemd does not read: it reads
  // `*.user` and `*.group`) and renamed over the record (mv: rename(2), atomic), so a reader (nss-systemd,
  // getent) sees a record absent or complete, never in part; a write or rename that fails removes its temporary
  // file. printf is a builtin: a first use of each of the pool's uids costs four execs of mv, later runs none (the
  // `<uid>.group` record, written last, is there). Only this run, which holds the uid's lock, writes them, before
  // its command starts; a run that cannot write them still runs its command (as an unnamed uid).
  // In the printf format $U is outside its single quotes: `'$U'` closes them, expands, and reopens them.
  const user = `{"userName":"hostgate-sandbox-'$U'","uid":'$U',"gid":'$U',"realName":"hostgate sandbox run","homeDirectory":"/","shell":"/usr/sbin/nologin","disposition":"dynamic","locked":true}`;
  const group = `{"groupName":"hostgate-sandbox-'$U'","gid":'$U',"disposition":"dynamic"}`;
  const put = (file: string, json: string): string => `{ printf '${json}\\n' > ${u}/${file}.$$ && mv -f ${u}/${file}.$$ ${u}/${file} || { rm -f ${u}/${file}.$$; false; }; }`;
  const write = (kind: "user" | "group", json: string): string => `${put(`hostgate-sandbox-$U.${kind}`, json)} && ${put(`$U.${kind}`, json)}`;
  const namesLine = `[ -e ${u}/$U.group ] || { { [ -d ${u} ] || mkdir -m 0755 ${u}; } && ${write("user", user)} && ${write("group", group)}; } 2>/dev/null`;
  const fix = `chmod 0700 ${lock_dir} && chown root:root ${lock_dir}, or remove it (the next command makes it again)`;
  return [
    `[ -d ${d} ] || mkdir -m 0700 ${d} 2>/dev/null; m=$(ls -ldn ${d} 2>/dev/null)`,
    `[ -O ${d} ] && case $m in "drwx------ "*|"drwx------. "*) true;; *) false;; esac || { echo "hostgate: the uid lock directory ${lock_dir} must be a directory root owns with mode 0700 (drwx------); it is \${m:-missing}; fix: ${fix}" >&2; exit 125; }`,
    `U=; n=0; while [ $n -le ${last - first} ]; do u=$((${first} + ($$ + n) % ${last - first + 1})); { [ -e ${d}/$u ] || (umask 077; : >> ${d}/$u); } && exec 9>${d}/$u && ${shellQuote(flock)} -n 9 && { U=$u; break; }; n=$((n + 1)); done`,
    `[ -n "$U" ] || { echo "hostgate: no uid of the pool ${first}-${last} is free (each is a run in progress)" >&2; exit 125; }`,
    ...(names ? [namesLine] : []),
  ];
}

/**
 * Shell lines (run as root, before setpriv) that put the wrapper, and so everything it starts, into the host's
 * shared sandbox memory cgroup, creating it with its limit when missing: builtins only (`mkdir` once per host
 * and boot). Nothing when the login is not root or the probe found no writable memory cgroup. When the cgroup
 * cannot be joined (its parent went away since the probe) the command does not run (exit 125, says why).
 */
function memcgJoin(f: SandboxFacts): string[] {
  if (f.uid !== 0 || !f.memcg) return [];
  const g = shellQuote(`${f.memcg.dir}/${MEMCG_NAME}`);
  const limits = f.memcg.version === 1
    ? `echo ${SANDBOX_LIMITS.memory_bytes} > ${g}/memory.limit_in_bytes && { echo ${SANDBOX_LIMITS.memory_bytes} > ${g}/memory.memsw.limit_in_bytes; } 2>/dev/null`
    : `echo ${SANDBOX_LIMITS.memory_bytes} > ${g}/memory.max && { echo 0 > ${g}/memory.swap.max; } 2>/dev/null`;
  return [
    // Only the run whose mkdir created it sets the limits (a concurrent one finds it made: EEXIST is not an
    // error); a cgroup whose limits could not be written is removed again, so the join below fails closed.
    `[ -d ${g} ] || if mkdir ${g} 2>/dev/null; then { ${limits}; } || rmdir ${g} 2>/dev/null; fi`,
    `{ echo $$ > ${g}/cgroup.procs; } 2>/dev/null || { echo "hostgate: cannot join the sandbox memory cgroup ${g.replace(/'/g, "")}; the host is probed again within 10 minutes" >&2; exit 125; }`,
  ];
}

/**
 * Every other mount point that shows (part of) one of `paths` (absolute), by mount identity in the probe's mount
 * table (`SandboxFacts.mounts`, mounts.ts `aliasesOf`): what bubblewrap and systemd-run hide besides the paths
 * themselves. No duplicates; [] when the probe listed no mounts.
 */
function otherMounts(f: SandboxFacts, paths: readonly string[]): string[] {
  const mounts = f.mounts ?? [];
  return mounts.length === 0 ? [] : [...new Set(paths.flatMap((p) => aliasesOf(p, mounts)))];
}

/**
 * One path of a systemd path-list property (InaccessiblePaths=), `-`-prefixed (a missing path is skipped, not an
 * error) and quoted when it holds anything but plain path characters: systemd-run splits the value into words
 * and unquotes them (systemd.syntax(7), "Quoting"), so a space, quote or backslash is kept by double quotes and a
 * backslash before `"` and `\`.
 */
function systemdPathWord(p: string): string {
  return /^[\w./@+:,-]+$/.test(p) ? `-${p}` : `"-${p.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

function systemdRunCommand(argv: readonly string[], sb: HostSandbox, o: ConfineOptions): ConfinedCommand {
  const f = sb.facts;
  const unit = `hostgate-exec-${o.run_id}`;
  // ProtectHome=yes covers /home, /root and /run/user; homes elsewhere are made inaccessible (login.ts). So is
  // every other mount that shows a hidden path (a bind of /home at /srv/h, of / at /mnt/rootfs…), found by
  // device and root in the probe's mount table as for bubblewrap: InaccessiblePaths= alone hides by path.
  const named = [...OWN_STATE_DIRS, ...NULL_FILES, ...(o.hide_dirs ?? []), ...(o.hide_files ?? []), ...hiddenHomes(f, EMPTY_DIRS)];
  const inaccessible = [...new Set([...named, ...otherMounts(f, [...EMPTY_DIRS, ...named])])].map(systemdPathWord);
  const props = [
    // A dynamic user (a uid of its own: no signals to or ptrace of other nobody processes) where nss-systemd
    // names it; else the host's nobody: without nss-systemd (Debian's default) dbus-daemon cannot resolve a
    // dynamic uid and drops its connection, so `systemctl status` would fail inside.
    ...(f.nss_systemd ? ["DynamicUser=yes"] : [`User=${unprivileged(f).uid}`, `Group=${unprivileged(f).gid}`, "RemoveIPC=yes"]),
    "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "PrivateDevices=yes",
    "NoNewPrivileges=yes", "ProtectKernelTunables=yes", "ProtectKernelModules=yes", "ProtectControlGroups=yes",
    "RestrictSUIDSGID=yes", "LockPersonality=yes", "RestrictNamespaces=yes", "KillMode=control-group",
    // System calls of the host's native ABI only (no i386 `int 0x80`, no x32): the other ABIs' numbers go around
    // every other filter (review, "systemd-run"); and the calls the bubblewrap/helper filter refuses besides
    // namespaces (seccomp.ts): kernel keyrings, bpf, userfaultfd, perf events, io_uring, with EPERM.
    "SystemCallArchitectures=native", "SystemCallErrorNumber=EPERM",
    "SystemCallFilter=~add_key request_key keyctl bpf userfaultfd perf_event_open io_uring_setup io_uring_enter io_uring_register",
    `InaccessiblePaths=${inaccessible.join(" ")}`,
    ...(f.log_groups.length > 0 ? [`SupplementaryGroups=${f.log_groups.map((g) => g.name).join(" ")}`] : []),
    // RestrictAddressFamilies= given twice is a union (systemd.exec(5)): one line per grant.
    // PrivateNetwork=: a network namespace of its own, so the host's abstract Unix sockets are out of reach too.
    // With the host's network view: the namespace stays, and no Unix socket at all can be created.
    ...(o.network === "none" ? (o.host_network_view === true ? ["RestrictAddressFamilies=AF_NETLINK"] : ["RestrictAddressFamilies=AF_UNIX AF_NETLINK", "PrivateNetwork=yes"]) : []),
    ...(o.network === "loopback" ? ["RestrictAddressFamilies=AF_UNIX AF_NETLINK AF_INET AF_INET6", "IPAddressDeny=any", "IPAddressAllow=localhost"] : []),
    `TasksMax=${SANDBOX_LIMITS.processes}`, `MemoryMax=${SANDBOX_LIMITS.unit_memory_bytes}`,
    ...(o.timeout_sec > 0 ? [`RuntimeMaxSec=${o.timeout_sec}`] : []),
  ];
  const words = [
    f.programs.systemd_run!, "--pipe", "--wait", "--quiet", "--collect", "--service-type=exec", `--unit=${unit}`,
    ...props.flatMap((p) => ["-p", p]), "--", ...argv,
  ];
  return {
    command: `exec ${shellJoin(words)} </dev/null`,
    kill_command: `systemctl kill --signal=KILL ${unit}.service 2>/dev/null; systemctl stop ${unit}.service 2>/dev/null`,
  };
}
