import { HostgateError } from "../../errors.ts";
import { LIMITS, utf8Length } from "../../limits.ts";
import { isWithinRoot } from "../../paths.ts";

/**
 * Which paths WriteFile may replace. The rules are lexical and are applied twice: to the path as given and
 * to the path with its directory resolved through symlinks (so `/tmp/link/shadow` with `/tmp/link → /etc`
 * is refused like `/etc/shadow`). Sources: the hostgate brief (account databases, sudoers, kernel and
 * device trees, private keys), extended with the shadow backups `passwd-`/`shadow-`… that `vipw` and
 * `shadow-utils` keep beside the originals, `/etc/sudoers.d` (same effect as /etc/sudoers) and OpenSSH
 * host keys (`ssh_host_*_key`).
 */
export const FORBIDDEN_FILES: readonly string[] = [
  "/etc/shadow", "/etc/gshadow", "/etc/passwd", "/etc/group", "/etc/sudoers",
  "/etc/shadow-", "/etc/gshadow-", "/etc/passwd-", "/etc/group-",
  // Review additions: a preload list injects code into every process; opasswd holds old password hashes.
  "/etc/ld.so.preload", "/etc/security/opasswd",
];

/** Why each of FORBIDDEN_FILES is refused, completing "<path> …". */
const FILE_REASONS: Readonly<Record<string, string>> = Object.fromEntries(FORBIDDEN_FILES.map((f) => [f,
  f === "/etc/ld.so.preload" ? "lists libraries the dynamic linker loads into every program, root's included (ld.so(8))"
    : f === "/etc/security/opasswd" ? "holds old password hashes (pam_pwhistory(8))"
    : f.startsWith("/etc/sudoers") ? "is the sudo policy"
    : "is an account database (or its backup)"]));

/** Trees no file may be written under. */
export const FORBIDDEN_ROOTS: readonly string[] = ["/boot", "/proc", "/sys", "/dev", "/etc/sudoers.d"];

/** Whether a file name (last path segment) looks like a private key. */
function isPrivateKeyName(parentDir: string, name: string): boolean {
  if (name.endsWith(".pem") || name.endsWith(".key")) return true;
  if (/^ssh_host_.*_key$/.test(name)) return true;
  return (parentDir === ".ssh" || parentDir.endsWith("/.ssh")) && name.startsWith("id_");
}

/**
 * hostgate's own configuration locations, always protected: the system configuration directory and its
 * systemd unit drop-ins. The daemon adds its state directory (signing keys, state.db, audit.db), its runtime
 * directory (sockets) and the configuration file it read (`ActionContext.protected_paths`).
 */
export const HOSTGATE_ROOTS: readonly string[] = ["/etc/hostgate", "/etc/systemd/system/hostgate.service.d", "/etc/systemd/system/hostgate.service"];

/**
 * The reason `path` may not be written, or null when it may. `path` must be absolute and normalised;
 * `protectedPaths` are hostgate's own directories and files for this daemon (see {@link HOSTGATE_ROOTS}).
 */
export function forbiddenReason(path: string, protectedPaths: readonly string[] = []): string | null {
  const why = FILE_REASONS[path];
  if (why !== undefined) return `${path} ${why}`;
  const root = FORBIDDEN_ROOTS.find((r) => isWithinRoot(path, r));
  if (root) return `nothing under ${root} may be written`;
  const own = [...HOSTGATE_ROOTS, ...protectedPaths].find((r) => isWithinRoot(path, r));
  if (own) return `${own} is hostgate's own state or configuration (a model must not rewrite its own approvals, keys or audit chain)`;
  const slash = path.lastIndexOf("/");
  if (isPrivateKeyName(path.slice(0, slash), path.slice(slash + 1))) return "it looks like a private key file";
  return null;
}

/**
 * Lexical checks on a WriteFile path; throws HostgateError `invalid_params` for malformed paths (relative,
 * over 1 KiB, NUL, `.`/`..`/empty segments, trailing slash) and `forbidden_path` for {@link forbiddenReason}.
 */
export function checkWritePath(path: string, protectedPaths: readonly string[] = []): void {
  const invalid = (why: string): never => {
    throw new HostgateError("invalid_params", `Invalid path ${JSON.stringify(path)}: ${why}.`, { hint: "Pass an absolute, normalised path such as /etc/myapp/config.toml." });
  };
  if (path.includes("\0")) invalid("it contains a NUL character");
  if (utf8Length(path) > LIMITS.pathBytes) invalid(`it is longer than ${LIMITS.pathBytes} bytes`);
  if (!path.startsWith("/")) invalid("it must be absolute");
  const segments = path.slice(1).split("/");
  if (segments.includes("..")) invalid("`..` segments are not allowed");
  if (segments.some((s) => s === "" || s === ".")) invalid("empty or `.` segments are not allowed (normalise it, no trailing slash)");
  refuseForbidden(path, path, protectedPaths);
}

/** Throws `forbidden_path` when `checked` (the given or the resolved form of `given`) is forbidden. */
export function refuseForbidden(given: string, checked: string, protectedPaths: readonly string[] = []): void {
  const reason = forbiddenReason(checked, protectedPaths);
  if (reason === null) return;
  const via = given === checked ? "" : ` (it resolves to ${checked})`;
  throw new HostgateError("forbidden_path", `Refused to write ${given}${via}: ${reason}.`, {
    hint: "hostgate never writes account databases, sudoers, /boot, /proc, /sys, /dev, private keys or its own state and configuration; make that change by hand.",
  });
}
