/*
 * hostgate-confine: the whole bubblewrap sandbox of an unapproved command (src/core/sandbox/confine.ts) in one
 * exec, for a root login (the daemon's own host, and SSH hosts of the build's architecture, where the daemon
 * puts this build in the login's cache: src/core/sandbox/helper-cache.ts). It replaces the chain `timeout → setpriv → bwrap` (three
 * dynamically linked programs, ≈ 9 ms of CPU each on a small VM) with one small static program built from this
 * file at build or test time (src/adapters/confine-helper.ts); the wrapper shell still sets the rlimits and
 * joins the memory cgroup with builtins before it execs this.
 *
 *   hostgate-confine (--uid U --gid G | --uid-pool FIRST-LAST --uid-locks DIR [--userdb DIR]) [--groups G1,G2] [--timeout SEC]
 *                    [--unshare-net | --scope-unix | --scope-unix-if-able]
 *                    [--tmpfs DIR]... [--tmpfs-size BYTES] [--hide-dir DIR]... [--hide-file FILE]... [--seccomp HEX]
 *                    [--pids-cgroup DIR --pids-max N] -- PROGRAM ARGS...
 *
 * What the command gets (the same as the bwrap recipe in confine.ts, by other means):
 * - new mount, PID, IPC, UTS and cgroup namespaces, and a network namespace with only `lo` (--unshare-net); or
 *   (--scope-unix) the host's network namespace with a Landlock scope (ABI 6+, Linux 6.12+) that keeps the host's
 *   abstract Unix sockets out of reach, what the network namespace was for when the seccomp filter already
 *   refuses IP sockets: no namespace to create and tear down (≈ 1.4 ms of CPU a command here), and `ss` sees
 *   the host; where Landlock cannot, the network namespace is made instead; --scope-unix-if-able (a network
 *   grant: the host's namespace must stay) scopes them where Landlock can and does nothing elsewhere;
 * - the host's whole mount tree made read-only, nosuid and nodev recursively (mount_setattr(2), Linux 5.12+),
 *   private; writable tmpfs on each --tmpfs directory, each capped at --tmpfs-size bytes (tmpfs size=; default:
 *   the kernel's, half of RAM); each --hide-dir and --hide-file hidden by what it is on the host (a directory: an
 *   empty read-only tmpfs; any other file: /dev/null; symlinks resolved first, missing paths skipped), and so is
 *   every other mount that shows the same files (a second bind mount of a hidden directory, a second mount of
 *   its file system: found in /proc/self/mountinfo by device and root); a minimal /dev (null zero full random urandom tty, pts, shm: the host's block
 *   devices, kmsg, mem… are not there); the host's /proc stays visible read-only (ps, ss): another process's
 *   /proc/<pid>/{root,cwd,fd,environ,mem} stays out of reach because the command is in a user namespace of
 *   its own (the kernel's ptrace access check, commoncap, wants the same namespace or CAP_SYS_PTRACE in it);
 * - with --uid-pool: a uid of its own for the run (as systemd's DynamicUser= gives a service), U = G = the first
 *   uid of FIRST…LAST, starting at the helper's pid modulo the pool's size, whose lock file DIR/U (DIR made
 *   root's, mode 0700, when missing; refused when another user owns it or others may enter it) the helper can
 *   flock(2) without waiting (the pool is a range no account uses, checked by the daemon's probe; looking for
 *   processes a uid owns, by the owner of each /proc/<pid>, cost ≈ 1.5–2 ms of CPU a run at 150–200 processes
 *   and grows with the process table, so it is not done); the lock is held by the helper until the command and everything it started
 *   are gone (the namespace's init reaped), and the kernel drops it with the helper's descriptor however the
 *   helper ends, so two runs at once never share a uid and a killed run's uid is free again at once. No other
 *   process on the host has U, so none can signal, ptrace or read /proc/<pid> of the command without
 *   CAP_KILL/CAP_SYS_PTRACE (kill(2), ptrace(2) "Ptrace access mode checking"), and commands of other runs
 *   cannot either; with --userdb (a host whose NSS asks nss-systemd) the uid and gid get names there, as JSON
 *   drop-in records `hostgate-sandbox-U.{user,group}` and `U.{user,group}` links (systemd's userdb drop-ins,
 *   nss-systemd(8)), written once per uid and kept: dbus-daemon drops a connection whose uid NSS cannot name,
 *   and `systemctl status` goes through it;
 * - uid/gid U/G with supplementary groups --groups, no capabilities (bounding set emptied), no_new_privs, in a
 *   user namespace of its own (mapping only U and G; the helper's root parent writes the maps), so commands of
 *   other runs, which share the uid, cannot ptrace or read each other's /proc/<pid> (the kernel refuses
 *   ptrace across user namespaces without CAP_SYS_PTRACE); the namespace is created before the uid is dropped,
 *   so it is owned by root, and a host process running as U (nobody) holds no capability in it either: it
 *   cannot ptrace the command or read its /proc/<pid>/{mem,environ} (it can still signal it: same uid);
 * - no inherited descriptor but 0, 1 and 2; a new session (setsid: no terminal injection) and the seccomp
 *   filter given in --seccomp (hex bytes of a struct sock_filter[], core/sandbox/seccomp.ts: no namespaces,
 *   keyrings, foreign ABIs…, and no network sockets without a grant) loaded just before exec;
 * - with --pids-cgroup: a pids cgroup of its own, DIR/run-<helper pid> (made, capped at --pids-max, removed
 *   after; DIR is made when missing, and empty leftovers of helpers that were killed are removed), so the
 *   process limit counts this command's processes only (RLIMIT_NPROC counts every process of the uid on the
 *   host: other sandboxed commands and the host's own `nobody` services);
 * - an end: at --timeout seconds the helper kills the namespace's init, which ends every process in it; when
 *   the command exits, its init exits and the kernel kills whatever it left (setsid children included); when
 *   the helper's parent dies (the daemon, an SSH session) the helper and so the namespace die (PDEATHSIG).
 * Exit status: the command's, 128 + signal when it was killed, 125 with `hostgate-confine: …` on stderr when
 * the sandbox could not be set up (nothing ran), 127 when PROGRAM cannot be executed.
 * Sources: clone(2), unshare(2), mount(2), mount_setattr(2), user_namespaces(7) (uid_map rules),
 * capabilities(7), prctl(2), seccomp(2), pid_namespaces(7), netdevice(7).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#define HG_SYS_landlock_create_ruleset 444
#define HG_SYS_landlock_restrict_self 446
#define HG_LANDLOCK_CREATE_RULESET_VERSION 1
#define HG_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET 0x1
/** struct landlock_ruleset_attr as of Landlock ABI 6 (linux/landlock.h). */
struct hg_ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
// The kernel's own structures and constants are written out here instead of taken from <linux/*.h>: musl's
// compiler wrapper (musl-gcc, preferred by the build: adapters/confine-helper.ts) has no kernel headers.
/** struct sock_filter and struct sock_fprog (linux/filter.h); SECCOMP_MODE_FILTER (linux/seccomp.h). */
struct hg_sock_filter { uint16_t code; uint8_t jt, jf; uint32_t k; };
struct hg_sock_fprog { unsigned short len; struct hg_sock_filter *filter; };
#define HG_SECCOMP_MODE_FILTER 2
/** capset(2)'s header and data (linux/capability.h), version 3. */
struct hg_cap_header { uint32_t version; int pid; };
struct hg_cap_data { uint32_t effective, permitted, inheritable; };
#define HG_CAP_VERSION_3 0x20080522
/** struct statx (linux/stat.h) as far as it is read here, padded to the kernel's 256 bytes; statx(2) mask bits. */
struct hg_statx {
  uint32_t stx_mask, stx_blksize; uint64_t stx_attributes; uint32_t stx_nlink, stx_uid, stx_gid; uint16_t stx_mode, pad1;
  uint64_t stx_ino, stx_size, stx_blocks, stx_attributes_mask; int64_t times[8]; uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
  uint64_t stx_mnt_id; uint64_t spare[13];
};
#define HG_STATX_TYPE 0x1U
#define HG_STATX_MNT_ID 0x1000U
#ifndef SYS_statx
#define SYS_statx 332
#endif
#define HG_AT_RECURSIVE 0x8000
#define HG_MOUNT_ATTR_RDONLY 0x1
#define HG_MOUNT_ATTR_NOSUID 0x2
#define HG_MOUNT_ATTR_NODEV 0x4
struct hg_mount_attr { uint64_t attr_set, attr_clr, propagation, userns_fd; };

#define MAX_PATHS 64
static uid_t opt_uid = (uid_t)-1;
static gid_t opt_gid = (gid_t)-1;
static gid_t opt_groups[32];
static int n_groups = 0;
static unsigned opt_timeout = 0;
static const char *opt_pids_cgroup = NULL;
static unsigned long opt_pids_max = 0;
static int opt_net = 0;
static int opt_scope_unix = 0;
static int opt_scope_unix_if_able = 0;
static unsigned long opt_tmpfs_size = 0;
static const char *tmpfs_dirs[MAX_PATHS], *hide_dirs[MAX_PATHS], *hide_files[MAX_PATHS];
static int n_tmpfs = 0, n_hide_dirs = 0, n_hide_files = 0;
static struct hg_sock_filter filter[256];
static unsigned short filter_len = 0;
static volatile pid_t init_pid = 0;
static unsigned long opt_pool_first = 0, opt_pool_last = 0;
static const char *opt_pool_locks = NULL;
static const char *opt_userdb = NULL;
/** The run's uid lock (--uid-pool): held by the helper for the run's life, closed in the namespace's init. */
static int lock_fd = -1;

static void die(const char *fmt, ...) {
  int e = errno;
  va_list ap;
  char msg[512];
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  dprintf(2, "hostgate-confine: %s%s%s\n", msg, e ? ": " : "", e ? strerror(e) : "");
  _exit(125);
}

static unsigned long number(const char *opt, const char *s) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || *s == '\0' || *end != '\0' || v > 0x7fffffffUL) { errno = 0; die("%s needs a decimal number, got \"%s\"", opt, s); }
  return v;
}

static void add_path(const char **list, int *n, const char *opt, const char *p) {
  if (p[0] != '/') { errno = 0; die("%s needs an absolute path, got \"%s\"", opt, p); }
  if (*n >= MAX_PATHS) { errno = 0; die("too many %s options (at most %d)", opt, MAX_PATHS); }
  list[(*n)++] = p;
}

/**
 * The value of an option that takes one directory (--pids-cgroup, --uid-locks, --userdb): an absolute path of at
 * most 512 bytes, short enough that the paths made under it fit the PATH_MAX and 600-byte buffers they go into.
 */
static const char *one_dir(const char *opt, const char *p) {
  if (strlen(p) > 512) { errno = 0; die("%s: at most 512 bytes", opt); }
  if (p[0] != '/') { errno = 0; die("%s needs an absolute path, got \"%s\"", opt, p); }
  return p;
}

static void parse_seccomp(const char *hex) {
  size_t len = strlen(hex);
  if (len == 0 || len % 16 != 0 || len / 16 > sizeof filter / sizeof filter[0]) { errno = 0; die("--seccomp needs whole 8-byte instructions in hex"); }
  unsigned char *b = (unsigned char *)filter;
  for (size_t i = 0; i < len / 2; i++) {
    unsigned v;
    if (sscanf(hex + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", hex[2 * i]) || !strchr("0123456789abcdefABCDEF", hex[2 * i + 1])) { errno = 0; die("--seccomp: not hex at byte %zu", i); }
    b[i] = (unsigned char)v;
  }
  filter_len = (unsigned short)(len / 16);
}

/**
 * `--groups G1,G2…`: at most 32 decimal gids, none 0 (root's group), no empty item. Parsed in place of a copy
 * of the value: an earlier fixed buffer cut a long value short, so "000…0004" became gid 0 (review finding 3).
 */
static void parse_groups(const char *v) {
  const char *p = v;
  if (*v == '\0') { errno = 0; die("--groups needs gids separated by commas"); }
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    char item[16];
    if (len == 0 || len >= sizeof item) { errno = 0; die("--groups needs gids separated by commas, got \"%s\"", v); }
    memcpy(item, p, len);
    item[len] = '\0';
    if (n_groups >= 32) { errno = 0; die("--groups: at most 32"); }
    gid_t g = (gid_t)number("--groups", item);
    if (g == 0) { errno = 0; die("--groups must not hold gid 0 (root's group)"); }
    opt_groups[n_groups++] = g;
    if (!comma) break;
    p = comma + 1;
  }
}

static int parse(int argc, char **argv) {
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) { i++; break; }
    if (strcmp(a, "--unshare-net") == 0) { opt_net = 1; continue; }
    if (strcmp(a, "--scope-unix") == 0) { opt_scope_unix = 1; continue; }
    if (strcmp(a, "--scope-unix-if-able") == 0) { opt_scope_unix_if_able = 1; continue; }
    if (i + 1 >= argc) { errno = 0; die("%s: missing value (or unknown option)", a); }
    const char *v = argv[++i];
    if (strcmp(a, "--uid") == 0) opt_uid = (uid_t)number(a, v);
    else if (strcmp(a, "--gid") == 0) opt_gid = (gid_t)number(a, v);
    else if (strcmp(a, "--timeout") == 0) opt_timeout = (unsigned)number(a, v);
    else if (strcmp(a, "--tmpfs") == 0) add_path(tmpfs_dirs, &n_tmpfs, a, v);
    else if (strcmp(a, "--hide-dir") == 0) add_path(hide_dirs, &n_hide_dirs, a, v);
    else if (strcmp(a, "--hide-file") == 0) add_path(hide_files, &n_hide_files, a, v);
    else if (strcmp(a, "--seccomp") == 0) parse_seccomp(v);
    // Short enough that DIR/run-<pid>/cgroup.procs fits the PATH_MAX buffers it is written into (no cut path).
    else if (strcmp(a, "--pids-cgroup") == 0) opt_pids_cgroup = one_dir(a, v);
    else if (strcmp(a, "--pids-max") == 0) opt_pids_max = number(a, v);
    else if (strcmp(a, "--tmpfs-size") == 0) {
      // At least a page; at most 2^31-1 (number()): a scratch directory, not a disk.
      opt_tmpfs_size = number(a, v);
      if (opt_tmpfs_size < 4096) { errno = 0; die("--tmpfs-size needs at least 4096 bytes, got \"%s\"", v); }
    }
    else if (strcmp(a, "--groups") == 0) parse_groups(v);
    else if (strcmp(a, "--uid-pool") == 0) {
      const char *dash = strchr(v, '-');
      char first[16];
      if (!dash || dash == v || (size_t)(dash - v) >= sizeof first) { errno = 0; die("--uid-pool needs FIRST-LAST (decimal uids), got \"%s\"", v); }
      memcpy(first, v, (size_t)(dash - v));
      first[dash - v] = '\0';
      opt_pool_first = number(a, first);
      opt_pool_last = number(a, dash + 1);
      if (opt_pool_first == 0 || opt_pool_last < opt_pool_first || opt_pool_last - opt_pool_first >= 65536) { errno = 0; die("--uid-pool needs 0 < FIRST <= LAST, at most 65536 uids, got \"%s\"", v); }
    }
    else if (strcmp(a, "--userdb") == 0) opt_userdb = one_dir(a, v);
    else if (strcmp(a, "--uid-locks") == 0) opt_pool_locks = one_dir(a, v);
    else { errno = 0; die("unknown option %s", a); }
  }
  if ((opt_pool_first == 0) != (opt_pool_locks == NULL)) { errno = 0; die("--uid-pool and --uid-locks go together"); }
  if (opt_pool_first != 0 && (opt_uid != (uid_t)-1 || opt_gid != (gid_t)-1)) { errno = 0; die("--uid-pool excludes --uid and --gid"); }
  if (opt_userdb && opt_pool_first == 0) { errno = 0; die("--userdb goes with --uid-pool"); }
  if (opt_pool_first == 0 && (opt_uid == (uid_t)-1 || opt_gid == (gid_t)-1 || opt_uid == 0 || opt_gid == 0)) { errno = 0; die("--uid and --gid (not 0), or --uid-pool, are required"); }
  if ((opt_pids_cgroup == NULL) != (opt_pids_max == 0)) { errno = 0; die("--pids-cgroup and --pids-max (not 0) go together"); }
  if (opt_net + opt_scope_unix + opt_scope_unix_if_able > 1) { errno = 0; die("--unshare-net, --scope-unix and --scope-unix-if-able exclude each other"); }
  if (i >= argc) { errno = 0; die("no command after --"); }
  return i;
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) die("write %s", path);
  close(fd);
}

/**
 * Where the first hidden directory's empty read-only tmpfs and the first hidden file's read-only /dev/null bind
 * are (empty: none yet). Every later one is a bind mount of these: a bind copies the source mount's flags
 * (read-only, nosuid, nodev, noexec), so one mount(2) call each instead of a new tmpfs or a bind and a remount
 * (bench/sandbox-cost.ts; the view is the same).
 */
static const char *empty_dir, *null_file;

/**
 * The resolved paths of a run, packed one after another: every page a process touches costs a page fault, and
 * after clone(2) a copy too (≈ 50 µs each on the test VM: bench/sandbox-cost.ts), so no PATH_MAX array each.
 */
static char pool[64 * 1024];
static size_t pool_used = 0;

/** A copy of `s` in the pool; ends the run when the pool is full. */
static const char *keep(const char *s) {
  size_t n = strlen(s) + 1;
  if (n > sizeof pool - pool_used) { errno = 0; die("too many or too long hidden paths"); }
  char *p = memcpy(pool + pool_used, s, n);
  pool_used += n;
  return p;
}

/**
 * Resolves a hidden path `p` into `real` (symlinks resolved) and `sx` (its type and the id of its mount,
 * statx(2), Linux 5.8+). Returns 0 when it is missing (skipped); any other failure to resolve it ends the run
 * (fail closed: an earlier version skipped a path of the other type and left it visible, review finding 4).
 */
static int resolve(const char *p, char *real, struct hg_statx *sx) {
  if (!realpath(p, real)) {
    if (errno == ENOENT || errno == ENOTDIR) return 0;
    die("resolve %s", p);
  }
  if (syscall(SYS_statx, AT_FDCWD, real, AT_NO_AUTOMOUNT, HG_STATX_TYPE | HG_STATX_MNT_ID, sx) != 0) die("stat %s", real);
  if (!(sx->stx_mask & HG_STATX_MNT_ID)) { errno = 0; die("find the mount of %s (statx, Linux 5.8+)", real); }
  return 1;
}

/**
 * Hides the resolved path `real` from the command by what it is on the host (whatever --hide-dir or --hide-file
 * said: a path's type is the host's, not the caller's guess): a directory gets an empty read-only tmpfs over
 * it, any other file the sandbox's /dev/null, read-only (after the first, binds of those: see empty_dir).
 */
static void hide_at(const char *real, int is_dir) {
  if (is_dir) {
    if (empty_dir) {
      if (mount(empty_dir, real, NULL, MS_BIND, NULL) != 0) die("hide %s", real);
    } else {
      if (mount("tmpfs", real, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=4k") != 0) die("hide %s", real);
      empty_dir = keep(real);
    }
  } else if (null_file) {
    if (mount(null_file, real, NULL, MS_BIND, NULL) != 0) die("hide %s", real);
  } else {
    if (mount("/dev/null", real, NULL, MS_BIND, NULL) != 0 || mount(NULL, real, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) != 0) die("hide %s", real);
    null_file = keep(real);
  }
}

/** Like hide() for a --tmpfs directory: a writable tmpfs (sticky, like /tmp) when it exists as a directory. */
static void scratch(const char *p) {
  char buf[PATH_MAX];
  struct stat st;
  if (!realpath(p, buf)) {
    if (errno == ENOENT || errno == ENOTDIR) return;
    die("resolve %s", p);
  }
  if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) return;
  char data[64];
  if (opt_tmpfs_size > 0) snprintf(data, sizeof data, "mode=1777,size=%lu", opt_tmpfs_size);
  else strcpy(data, "mode=1777");
  if (mount("tmpfs", buf, "tmpfs", MS_NOSUID | MS_NODEV, data) != 0) die("mount tmpfs on %s", buf);
}

/** One line of /proc/self/mountinfo (proc(5)): mount id, device, root within its file system, mount point. */
struct mnt { unsigned long id; char dev[24]; char *root, *point; };

/** Undoes mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134 backslash) in place. */
static void unescape(char *s) {
  char *o = s;
  for (; *s; s++) {
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
      *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
      s += 3;
    } else {
      *o++ = *s;
    }
  }
  *o = '\0';
}

/**
 * Reads /proc/self/mountinfo into `*out` (an array it allocates; the strings point into a buffer kept for the
 * run) and returns the count. Any failure ends the run (fail closed: the other mounts would stay visible).
 */
static int read_mounts(struct mnt **out) {
  int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open /proc/self/mountinfo");
  size_t cap = 16384, len = 0;
  char *text = malloc(cap);
  for (;;) {
    if (!text) die("read /proc/self/mountinfo");
    if (len + 1 >= cap) text = realloc(text, cap *= 2);
    if (!text) die("read /proc/self/mountinfo");
    ssize_t n = read(fd, text + len, cap - len - 1);
    if (n < 0) { if (errno == EINTR) continue; die("read /proc/self/mountinfo"); }
    if (n == 0) break;
    len += (size_t)n;
  }
  close(fd);
  text[len] = '\0';
  int count = 0, size = 64;
  struct mnt *m = malloc(sizeof *m * (size_t)size);
  for (char *line = text, *next; m && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0'; else next = line + strlen(line);
    // id parent major:minor root mount-point …
    char *f[5], *save = NULL;
    int k = 0;
    for (char *t = strtok_r(line, " ", &save); t && k < 5; t = strtok_r(NULL, " ", &save)) f[k++] = t;
    if (k < 5) { errno = 0; die("unreadable line in /proc/self/mountinfo"); }
    if (count == size) m = realloc(m, sizeof *m * (size_t)(size *= 2));
    if (!m) break;
    m[count].id = strtoul(f[0], NULL, 10);
    snprintf(m[count].dev, sizeof m[count].dev, "%s", f[2]);
    unescape(f[3]);
    unescape(f[4]);
    m[count].root = f[3];
    m[count].point = f[4];
    count++;
  }
  if (!m) die("read /proc/self/mountinfo");
  *out = m;
  return count;
}

/** `p` is `dir` or below it (`dir` absolute, no trailing slash but "/" itself); returns the rest ("" or "/…"), or NULL. */
static const char *under(const char *p, const char *dir) {
  if (strcmp(dir, "/") == 0) return p[0] == '/' ? (p[1] ? p : "") : NULL;
  size_t n = strlen(dir);
  return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/') ? p + n : NULL;
}

static const char *others[MAX_PATHS * 4];
static int n_others = 0;

/** Joins `a` and `b` (b "" or "/…"; a "/" alone drops its slash) into a new string; added to `others` once. */
static void add_other(const char *a, const char *b) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s%s", strcmp(a, "/") == 0 && b[0] ? "" : a, b) >= (int)sizeof path) { errno = 0; die("a path longer than PATH_MAX in /proc/self/mountinfo"); }
  for (int i = 0; i < n_others; i++) if (strcmp(others[i], path) == 0) return;
  if (n_others == (int)(sizeof others / sizeof others[0])) { errno = 0; die("too many other mounts of hidden paths (at most %d)", n_others); }
  others[n_others++] = keep(path);
}

/**
 * The other places a hidden path shows up in this mount namespace (review: "bind mounts and other paths to the
 * same files"): `real` (resolved) is on the mount `mnt_id`, device D with root R at mount point M, so it is
 * R + (real − M) within D's file system; every other mount of D whose root lies under that path shows (part of)
 * it at its mount point, and every one whose root lies above it shows it at mount point + (path − root). Each
 * such place is added to `others` (hidden after the named paths).
 */
static void find_others(const char *real, unsigned long mnt_id, struct mnt *m, int n) {
  char rel[PATH_MAX];
  struct mnt *own = NULL;
  for (int i = 0; i < n; i++) if (m[i].id == mnt_id) own = &m[i];
  if (!own) { errno = 0; die("the mount of %s is not in /proc/self/mountinfo", real); }
  const char *rest = under(real, own->point);
  if (!rest) { errno = 0; die("%s is not under its mount point %s", real, own->point); }
  if (snprintf(rel, sizeof rel, "%s%s", strcmp(own->root, "/") == 0 && rest[0] ? "" : own->root, rest) >= (int)sizeof rel) { errno = 0; die("path too long: %s", real); }
  for (int i = 0; i < n; i++) {
    if (&m[i] == own || strcmp(m[i].dev, own->dev) != 0) continue;
    const char *below = under(rel, m[i].root);
    if (below) add_other(m[i].point, below);
    else if (under(m[i].root, rel)) add_other(m[i].point, "");
  }
}

static void drop_bounding_set(void) {
  for (int cap = 0; cap <= 63; cap++) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
      if (errno == EINVAL) break;
      die("drop capability %d from the bounding set", cap);
    }
  }
}

/**
 * A minimal /dev on a tmpfs of its own: the six harmless character devices made with mknod (cheaper than bind
 * mounts; numbers from the kernel's devices.txt), the usual symlinks, /dev/shm and a private devpts.
 */
static void make_dev(void) {
  static const struct { const char *name; unsigned major, minor; } nodes[] = {
    { "null", 1, 3 }, { "zero", 1, 5 }, { "full", 1, 7 }, { "random", 1, 8 }, { "urandom", 1, 9 }, { "tty", 5, 0 },
  };
  if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64m") != 0) die("mount tmpfs on /dev");
  // umask 0 while the nodes are made: their modes as written, without a chmod(2) each; the command's umask after.
  mode_t mask = umask(0);
  char path[64];
  for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
    snprintf(path, sizeof path, "/dev/%s", nodes[i].name);
    if (mknod(path, S_IFCHR | 0666, makedev(nodes[i].major, nodes[i].minor)) != 0) die("mknod %s", path);
  }
  const char *links[][2] = { { "/proc/self/fd", "/dev/fd" }, { "/proc/self/fd/0", "/dev/stdin" }, { "/proc/self/fd/1", "/dev/stdout" },
                             { "/proc/self/fd/2", "/dev/stderr" }, { "pts/ptmx", "/dev/ptmx" } };
  for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) if (symlink(links[i][0], links[i][1]) != 0) die("symlink %s", links[i][1]);
  if (mkdir("/dev/shm", 01777) != 0) die("mkdir /dev/shm");
  if (mkdir("/dev/pts", 0755) != 0) die("mkdir /dev/pts");
  umask(mask);
  if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") != 0) die("mount /dev/pts");
}

static void loopback_up(void) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strcpy(ifr.ifr_name, "lo");
  if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) != 0) die("read the flags of lo");
  ifr.ifr_flags |= IFF_UP;
  if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) die("bring lo up");
  close(s);
}

/** The filesystem view (see the header), as root in the new mount namespace. */
static void setup_mounts(void) {
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "/");
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) die("make the mount tree private");
  // Read-only, and no device nodes or set-id bits anywhere in the host's tree (as bubblewrap's --ro-bind): a
  // device node outside /dev (a container's rootfs, a mistake) opened with the host's permissions, e.g. a
  // mode-0666 node of the root disk (review finding 2). The sandbox's own /dev (below) is a new mount.
  struct hg_mount_attr ro = { .attr_set = HG_MOUNT_ATTR_RDONLY | HG_MOUNT_ATTR_NOSUID | HG_MOUNT_ATTR_NODEV };
  if (syscall(SYS_mount_setattr, AT_FDCWD, "/", HG_AT_RECURSIVE, &ro, sizeof ro) != 0) die("make the mount tree read-only (mount_setattr, Linux 5.12+)");
  // /dev first: hidden files are bound to its /dev/null (the host's is on a mount that is nodev now).
  make_dev();
  // Every hidden path is resolved, and its other mounts found, before anything is mounted over one of them.
  const char *reals[2 * MAX_PATHS];
  int dirs[2 * MAX_PATHS], n_real = 0;
  struct mnt *m = NULL;
  int n_mnt = 0;
  char real[PATH_MAX];
  for (int i = 0; i < n_hide_files + n_hide_dirs; i++) {
    struct hg_statx sx;
    if (!resolve(i < n_hide_files ? hide_files[i] : hide_dirs[i - n_hide_files], real, &sx)) continue;
    if (!m) n_mnt = read_mounts(&m);
    find_others(real, (unsigned long)sx.stx_mnt_id, m, n_mnt);
    reals[n_real] = keep(real);
    dirs[n_real++] = S_ISDIR(sx.stx_mode);
  }
  // Files first: a hidden file under a hidden directory is then covered by both, as before.
  for (int pass = 0; pass < 2; pass++) for (int i = 0; i < n_real; i++) if (dirs[i] == pass) hide_at(reals[i], dirs[i]);
  // The other mounts, by their paths now (one may lie under a directory hidden above: then it is gone already).
  for (int i = 0; i < n_others; i++) {
    struct hg_statx sx;
    if (resolve(others[i], real, &sx)) hide_at(real, S_ISDIR(sx.stx_mode));
  }
  for (int i = 0; i < n_tmpfs; i++) scratch(tmpfs_dirs[i]);
  // Re-enter the working directory by its path: a reference taken before the mounts would still see what a
  // hidden directory holds.
  if (chdir(cwd) != 0 && chdir("/") != 0) die("chdir /");
}

static void drop_capabilities(void) {
  struct hg_cap_header h = { .version = HG_CAP_VERSION_3, .pid = 0 };
  struct hg_cap_data d[2];
  memset(d, 0, sizeof d);
  if (syscall(SYS_capset, &h, d) != 0) die("drop capabilities");
}

/** The running kernel's Landlock ABI version (0: none; 6+ can scope abstract Unix sockets). */
static int landlock_abi(void) {
  long v = syscall(HG_SYS_landlock_create_ruleset, NULL, 0, HG_LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : (int)v;
}

/**
 * --scope-unix, in the command's process (after no_new_privs): a Landlock domain whose only rule is the scope
 * of abstract Unix sockets, so the command can connect to none made outside it (the host's daemons), while
 * path sockets (D-Bus) still work by their file permissions. Fails closed.
 */
static void scope_abstract_unix(void) {
  struct hg_ruleset_attr attr = { .scoped = HG_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET };
  int fd = (int)syscall(HG_SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (fd < 0 || syscall(HG_SYS_landlock_restrict_self, fd, 0) != 0) die("scope abstract Unix sockets (Landlock)");
  close(fd);
}

static int exit_status(int st) {
  return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 125;
}

/** PID 1 of the new namespaces: sets the view up, drops to the unprivileged identity, runs the command, reaps. */
static int init_main(char **cmd, int ready_fd, int go_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // The uid lock stays with the helper alone (the command must not be able to release it: flock(fd, LOCK_UN)).
  if (lock_fd >= 0) close(lock_fd);
  setup_mounts();
  if (opt_net) loopback_up();
  // The bounding set is emptied once, after unshare(CLONE_NEWUSER) below: that call resets it to the full set
  // (kernel/user_namespace.c, set_cred_user_ns), so emptying it here too (41 prctl calls) changed nothing
  // the command gets; until then nothing is executed.
  if (setgroups((size_t)n_groups, opt_groups) != 0 || setresgid(opt_gid, opt_gid, opt_gid) != 0) die("drop to gid %u", opt_gid);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("no_new_privs");
  // The user namespace is made while the uid is still 0, so root owns it, not --uid: the kernel gives the owner
  // of a user namespace every capability in it (user_namespaces(7)), so a namespace owned by `nobody` let any
  // host process running as nobody ptrace the command, read its /proc/<pid>/{mem,environ,fd} and join the
  // namespace (test/security/sandbox-attack.test.ts "a host process running as nobody"). The uid is dropped
  // inside it, with the CAP_SETUID its creator holds there, once the parent has written the maps.
  if (unshare(CLONE_NEWUSER) != 0) die("a user namespace of its own");
  char c = 'u';
  if (write(ready_fd, &c, 1) != 1 || read(go_fd, &c, 1) != 1) die("wait for the uid map");
  close(ready_fd);
  close(go_fd);
  if (setresuid(opt_uid, opt_uid, opt_uid) != 0) die("drop to uid %u", opt_uid);
  drop_bounding_set();
  drop_capabilities();
  // vfork: the command's process shares init's memory until it execs, so no page tables are copied (a fork
  // cost ≈ 2 ms of CPU on the test VM: bench/sandbox-cost.ts). The child only calls setsid, prctl and execvp
  // and leaves by exec or _exit, as vfork(2) requires.
  pid_t cmd_pid = vfork();
  if (cmd_pid < 0) die("fork");
  if (cmd_pid == 0) {
    if (setsid() < 0) die("setsid");
    if (opt_scope_unix) scope_abstract_unix();
    if (filter_len > 0) {
      struct hg_sock_fprog prog = { .len = filter_len, .filter = filter };
      if (prctl(PR_SET_SECCOMP, HG_SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) die("load the seccomp filter");
    }
    execvp(cmd[0], cmd);
    dprintf(2, "hostgate-confine: execute %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, 0);
    if (p == cmd_pid) return exit_status(st);
    if (p < 0 && errno != EINTR) return 125;
  }
}

/**
 * One userdb drop-in record (see the header: --userdb) for `u` of `kind` ("user" or "group"), unless its
 * `<u>.<kind>` link is there already (the usual case: one failed lookup). The record is written under a temporary
 * name and renamed, then linked, so a reader never sees half of one; when that fails the temporary file is removed
 * and the run ends (125).
 */
static void userdb_record(unsigned long u, const char *kind) {
  char link[600], name[64], path[600], tmp[640], json[256];
  snprintf(link, sizeof link, "%s/%lu.%s", opt_userdb, u, kind);
  if (access(link, F_OK) == 0) return;
  snprintf(name, sizeof name, "hostgate-sandbox-%lu.%s", u, kind);
  snprintf(path, sizeof path, "%s/%s", opt_userdb, name);
  snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
  if (strcmp(kind, "user") == 0)
    snprintf(json, sizeof json, "{\"userName\":\"hostgate-sandbox-%lu\",\"uid\":%lu,\"gid\":%lu,\"realName\":\"hostgate sandbox run\",\"homeDirectory\":\"/\",\"shell\":\"/usr/sbin/nologin\",\"disposition\":\"dynamic\",\"locked\":true}\n", u, u, u);
  else
    snprintf(json, sizeof json, "{\"groupName\":\"hostgate-sandbox-%lu\",\"gid\":%lu,\"disposition\":\"dynamic\"}\n", u, u);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) die("write %s", path);
  ssize_t n = write(fd, json, strlen(json));
  int saved = n == (ssize_t)strlen(json) ? 0 : n < 0 ? errno : ENOSPC;
  if (close(fd) != 0 && saved == 0) saved = errno;
  if (saved == 0 && rename(tmp, path) != 0) saved = errno;
  if (saved != 0) {
    // A write, close or rename that failed leaves no temporary file behind (a full /run, say).
    unlink(tmp);
    errno = saved;
    die("write %s", path);
  }
  if (symlink(name, link) != 0 && errno != EEXIST) die("link %s", link);
}

/**
 * --uid-pool: takes the run's uid (see the header) and sets --uid and --gid to it; keeps its lock in lock_fd.
 * Ends the run (125) when the lock directory is not root's alone, or no uid of the pool is free.
 */
static void allocate_uid(void) {
  if (mkdir(opt_pool_locks, 0700) != 0 && errno != EEXIST) die("make the uid lock directory %s", opt_pool_locks);
  int dir = open(opt_pool_locks, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (dir < 0 || fstat(dir, &st) != 0) die("open the uid lock directory %s", opt_pool_locks);
  if (st.st_uid != 0 || (st.st_mode & 077) != 0) { errno = 0; die("the uid lock directory %s must be root's with mode 0700 (it is uid %u, mode %o): remove it", opt_pool_locks, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777)); }
  unsigned long count = opt_pool_last - opt_pool_first + 1, start = (unsigned long)getpid() % count;
  for (unsigned long i = 0; i < count; i++) {
    unsigned long u = opt_pool_first + (start + i) % count;
    char name[16];
    snprintf(name, sizeof name, "%lu", u);
    int fd = openat(dir, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) die("open the uid lock %s/%s", opt_pool_locks, name);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) die("lock %s/%s", opt_pool_locks, name);
    } else {
      lock_fd = fd;
      opt_uid = (uid_t)u;
      opt_gid = (gid_t)u;
      close(dir);
      if (opt_userdb) {
        if (mkdir(opt_userdb, 0755) != 0 && errno != EEXIST) die("make %s", opt_userdb);
        userdb_record(u, "user");
        userdb_record(u, "group");
      }
      return;
    }
    close(fd);
  }
  errno = 0;
  die("no uid of the pool %lu-%lu is free (each is a run in progress)", opt_pool_first, opt_pool_last);
}

/**
 * Makes the run's pids cgroup (see the header) and returns its path in `run`; removes empty `run-<pid>`
 * siblings whose helper is gone first (a killed helper cannot remove its own).
 */
static void pids_cgroup_make(char *run, size_t size) {
  if (mkdir(opt_pids_cgroup, 0755) != 0 && errno != EEXIST) die("make the pids cgroup %s", opt_pids_cgroup);
  DIR *d = opendir(opt_pids_cgroup);
  for (struct dirent *e; d && (e = readdir(d));) {
    int pid;
    char tail;
    if (sscanf(e->d_name, "run-%d%c", &pid, &tail) != 1 || pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH) continue;
    snprintf(run, size, "%s/%s", opt_pids_cgroup, e->d_name);
    rmdir(run);
  }
  if (d) closedir(d);
  errno = 0;
  char max[32];
  snprintf(run, size, "%s/run-%d", opt_pids_cgroup, (int)getpid());
  snprintf(max, sizeof max, "%lu\n", opt_pids_max);
  if (mkdir(run, 0755) != 0) die("make the pids cgroup %s", run);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/pids.max", run);
  write_file(path, max);
}

/**
 * No descriptor but 0, 1 and 2 reaches the command: close_range(2) (Linux 5.9+), else each one up to the open
 * files limit (an earlier version ignored close_range failing, so on an older kernel every inherited
 * descriptor reached the command: review finding 5).
 */
static void close_inherited(void) {
  if (syscall(SYS_close_range, 3U, ~0U, 0) == 0) return;
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) die("getrlimit");
  rlim_t top = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (1 << 20) ? (1 << 20) : rl.rlim_max;
  for (rlim_t fd = 3; fd < top; fd++) close((int)fd);
}

/** The time limit: killing the namespace's init ends every process in it (kill(2) is async-signal-safe). */
static void on_alarm(int sig) {
  (void)sig;
  if (init_pid > 0) kill(init_pid, SIGKILL);
}

int main(int argc, char **argv) {
  int first = parse(argc, argv);
  close_inherited();
  if (geteuid() != 0) { errno = 0; die("must run as root (it drops to --uid itself)"); }
  // Dies with its parent (the daemon's shell, an SSH session); a parent already gone before this line is seen
  // by the changed parent pid (review finding 6).
  pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) { errno = 0; die("the caller is gone"); }
  // Without Landlock's abstract-socket scope (Linux < 6.12, or Landlock off) the same isolation comes from a
  // network namespace of its own, as with --unshare-net.
  if (opt_scope_unix && landlock_abi() < 6) { opt_scope_unix = 0; opt_net = 1; }
  // With a network grant the host's namespace stays: the scope where Landlock has it, else nothing (documented).
  if (opt_scope_unix_if_able) opt_scope_unix = landlock_abi() >= 6;
  if (opt_pool_first != 0) allocate_uid();
  char run_cg[PATH_MAX] = "";
  if (opt_pids_cgroup) pids_cgroup_make(run_cg, sizeof run_cg);
  int ready[2], go[2];
  if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(go, O_CLOEXEC) != 0) die("pipe");
  long flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP | (opt_net ? CLONE_NEWNET : 0) | SIGCHLD;
  pid_t init = (pid_t)syscall(SYS_clone, flags, 0, 0, 0, 0);
  if (init < 0) die("create the namespaces");
  if (init == 0) {
    close(ready[0]);
    close(go[1]);
    _exit(init_main(argv + first, ready[1], go[0]));
  }
  init_pid = init;
  close(ready[1]);
  close(go[0]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  if (opt_timeout > 0) alarm(opt_timeout);
  char c;
  if (read(ready[0], &c, 1) == 1) {
    char path[64], map[64];
    snprintf(map, sizeof map, "%u %u 1\n", opt_uid, opt_uid);
    snprintf(path, sizeof path, "/proc/%d/uid_map", init);
    write_file(path, map);
    snprintf(map, sizeof map, "%u %u 1\n", opt_gid, opt_gid);
    snprintf(path, sizeof path, "/proc/%d/gid_map", init);
    write_file(path, map);
    // Before the command is forked: everything it starts is counted in the run's own cgroup.
    if (run_cg[0]) {
      char procs[PATH_MAX], pid[32];
      snprintf(procs, sizeof procs, "%s/cgroup.procs", run_cg);
      snprintf(pid, sizeof pid, "%d\n", (int)init);
      write_file(procs, pid);
    }
    if (write(go[1], &c, 1) != 1) die("release the sandbox");
  }
  for (;;) {
    // Wait without reaping first: until init is reaped its pid cannot be reused, so the alarm can never kill
    // another process that got the number (review finding 7); then the alarm is off and init is reaped.
    siginfo_t si;
    if (waitid(P_PID, (id_t)init, &si, WEXITED | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      die("wait");
    }
    alarm(0);
    init_pid = 0;
    int st;
    pid_t p = waitpid(init, &st, 0);
    if (p == init) {
      // The namespace's processes are gone once its init is reaped (the kernel killed them): the cgroup may
      // still list them for a moment, so its removal is retried briefly.
      for (int i = 0; run_cg[0] && i < 50 && rmdir(run_cg) != 0 && errno == EBUSY; i++) usleep(2000);
      return exit_status(st);
    }
    if (p < 0 && errno != EINTR) die("wait");
  }
}
