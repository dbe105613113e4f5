import { HostgateError } from "../errors.ts";

/**
 * How approved changes on a remote host get root (issue 20). `none`: the SSH login itself must be root;
 * `sudo`: commands are prefixed with `sudo -n --` (a NOPASSWD rule for the login user is needed: hostgate never
 * sends a password and never asks for a TTY, so a sudo that would prompt fails at once instead of hanging).
 */
export type Become = "none" | "sudo";

/** The prefix put before a privileged remote argv: `sudo -n --` for `sudo`, nothing for `none`. */
export function becomePrefix(become: Become): readonly string[] {
  return become === "sudo" ? ["sudo", "-n", "--"] : [];
}

/**
 * Whether a host's mutations can run as root, as `canBecome()` reports it for a plan preview: `via` is how
 * (`root`: the login is root; `sudo`: `sudo -n` answered without a prompt); `ok: false` carries the error
 * execute would fail with (`code`, `message`, `hint`), so the preview can say it before anyone approves.
 */
export type BecomeCheck =
  | { ok: true; via: "root" | "sudo"; login: string }
  | { ok: false; login: string; code: "sudo_password_required" | "privilege_unavailable"; message: string; hint: string };

/**
 * Reads sudo's own failure out of a remote command's stderr and exit status, or null when sudo itself did not
 * fail (the command behind it did, or the output is not sudo's). Sudo's wording (1.8–1.9, C locale): "a password
 * is required" (-n and no NOPASSWD rule; also printed for a user sudo would refuse, since sudo asks before it
 * tells), "is not in the sudoers file" / "is not allowed to execute" / "may not run sudo", "you must have a tty"
 * (Defaults requiretty), and a shell's "sudo: not found" / "command not found" (exit 127: no sudo installed).
 */
export function sudoFailure(stderr: string, exitCode: number | null, host: string, login: string): HostgateError | null {
  const hint = `Give ${login} a NOPASSWD sudo rule on ${host} for the commands hostgate runs (e.g. \`${login} ALL=(root) NOPASSWD: ALL\` in /etc/sudoers.d/), or log in as root; hostgate never sends a password.`;
  const details = { host, login, become: "sudo", stderr: stderr.slice(0, 500) };
  if (exitCode === 127 && /sudo/.test(stderr)) {
    return new HostgateError("privilege_unavailable", `sudo is not installed on ${host} (become: sudo for login ${login}); nothing ran.`, { hint: `Install sudo on ${host} or log in as root.`, details });
  }
  if (!/^sudo: /m.test(stderr) && !/\bsudoers\b/.test(stderr)) return null;
  if (/a password is required|password is required/.test(stderr)) {
    return new HostgateError("sudo_password_required", `sudo -n on ${host} would ask ${login} for a password; nothing ran.`, { hint, details });
  }
  if (/must have a tty|no tty present/.test(stderr)) {
    return new HostgateError("privilege_unavailable", `sudo on ${host} requires a terminal (Defaults requiretty) for ${login}; hostgate never opens one, so nothing ran.`, { hint: `Remove requiretty for ${login} on ${host} (Defaults:${login} !requiretty). ${hint}`, details });
  }
  if (/not in the sudoers file|is not allowed to (execute|run)|may not run sudo/.test(stderr)) {
    return new HostgateError("privilege_unavailable", `${login} may not use sudo on ${host}; nothing ran.`, { hint, details });
  }
  if (exitCode === 1) return new HostgateError("privilege_unavailable", `sudo on ${host} refused ${login}: ${stderr.trim().slice(0, 200)}`, { hint, details });
  return null;
}

/** The error for a non-root login on a host configured `become: none`. */
export function rootRequired(host: string, login: string): HostgateError {
  return new HostgateError("privilege_unavailable", `${host} is reached as ${login}, not root, and is not configured become: sudo; changes there need root.`, {
    hint: `Set become: sudo for ${host} in the inventory (with a NOPASSWD sudo rule for ${login}), or log in as root.`,
    details: { host, login, become: "none" },
  });
}
