import { posix } from "node:path";
import { createHash } from "node:crypto";
import { becomePrefix, rootRequired, sudoFailure, type Become, type BecomeCheck } from "../core/inventory/become.ts";
import { shellJoin } from "../core/inventory/target.ts";
import type { ExecResult } from "../core/exec.ts";
import { HostgateError } from "../core/errors.ts";
import type { HostMutator, SignalName, WriteFileOptions } from "../ports/host-mutator.ts";
import { sysctlKeyPath } from "../core/host/sysctl-key.ts";
import type { RunOptions } from "../ports/host-probe.ts";
import { incomplete, runRemote, type OpenExec, type RemoteRun } from "./remote-exec.ts";
import { WRITE_SCRIPT } from "./remote-write-script.ts";
import { CREATE_SCRIPT } from "./remote-create-script.ts";

/** Options of {@link SshHostMutator}. */
export interface SshHostMutatorOptions {
  /** Opens an exec channel on the host's pooled connection. */
  open: OpenExec;
  /** The host's inventory name (messages, error details). */
  host: string;
  /** The SSH login user (messages; `root` needs no become). */
  login: string;
  /** How commands get root: the inventory's `become` for this host. */
  become: Become;
  /** Budget of one file write, in milliseconds (default 30 000). */
  writeTimeoutMs?: number;
}

const SIGNALS: Record<SignalName, string> = {
  SIGTERM: "TERM", SIGKILL: "KILL", SIGHUP: "HUP", SIGINT: "INT", SIGUSR1: "USR1", SIGUSR2: "USR2", SIGSTOP: "STOP", SIGCONT: "CONT",
};

/** Checks an absolute, normalised file path and splits it; throws invalid_params naming what to fix. */
function splitPath(path: string): { dir: string; name: string } {
  if (!path.startsWith("/") || path.includes("\0") || posix.normalize(path) !== path || path.endsWith("/")) {
    throw new HostgateError("invalid_params", `${JSON.stringify(path.slice(0, 200))} is not an absolute, normalised file path.`, {
      hint: "Give the full path of the file, e.g. /etc/app/app.conf (no '..', no trailing '/').",
    });
  }
  const name = posix.basename(path);
  if (name === "" || name === "." || name === "..") throw new HostgateError("invalid_params", `${path} names no file.`);
  return { dir: posix.dirname(path), name };
}

/**
 * HostMutator of a remote host over SSH (issue 20). Every change is one fixed command sent on one exec channel,
 * each argument quoted by shellJoin, as root: directly when the login is root, through `sudo -n --` when the
 * host is configured `become: sudo` (never a password, never a TTY: a sudo that would prompt fails at once with
 * `sudo_password_required`, and nothing behind it runs). `canBecome()` answers, in one round trip, whether that
 * will work, for the plan preview to show before anyone approves.
 *
 * writeFileAtomic runs adapters/remote-write-script.ts (its comment lists how the port's contract is kept).
 * The `expectedSha256` precondition compares the SHA-256 of the file's bytes on the host: for UTF-8 text that
 * is the port's hash; a file that is not valid UTF-8 hashes differently from its preview and is refused
 * `precondition_failed` (fail closed). signal runs `kill -s NAME -- PID`; run runs argv under the remote
 * `timeout` (the remote process is killed when the budget ends).
 *
 * Errors (HostgateError): `invalid_params` (path), `not_found`, `permission_denied`, `precondition_failed`,
 * `sudo_password_required`, `privilege_unavailable`, `unavailable` (timeout, lost connection, anything else),
 * and the connection's own (`unreachable`, `host_key_mismatch`, …).
 */
export class SshHostMutator implements HostMutator {
  constructor(private readonly opts: SshHostMutatorOptions) {}

  /** How commands are prefixed on this host (for the audit entry: whether sudo was used). */
  get become(): Become {
    return this.opts.become;
  }

  /** Whether privileged commands go through `sudo -n --` here (`become: sudo`), as the audit entry reports it. */
  get sudo(): boolean {
    return this.opts.become === "sudo";
  }

  /**
   * Whether changes can run as root on this host, without running any change: `id -u` for `become: none`,
   * `sudo -n id -u` for `become: sudo`. Resolves with a BecomeCheck (never rejects for a sudo refusal); rejects
   * only when the host cannot be reached.
   */
  async canBecome(): Promise<BecomeCheck> {
    const { host, login, become } = this.opts;
    const r = await runRemote(this.opts.open, shellJoin([...becomePrefix(become), "id", "-u"]), { timeoutMs: 10_000, maxOutputBytes: 4096 });
    if (r.exit_code === 0 && r.stdout.toString().trim() === "0") return { ok: true, via: become === "sudo" && login !== "root" ? "sudo" : "root", login };
    const e = become === "sudo" ? sudoFailure(r.stderr.toString(), r.exit_code, host, login) : r.exit_code === 0 ? rootRequired(host, login) : null;
    if (e && (e.code === "sudo_password_required" || e.code === "privilege_unavailable")) return { ok: false, login, code: e.code, message: e.message, hint: e.hint ?? "" };
    if (r.exit_code === 0) return { ok: false, login, code: "privilege_unavailable", message: `sudo -n on ${host} did not give ${login} root (uid ${r.stdout.toString().trim()}).`, hint: "Let the sudo rule run commands as root." };
    throw incomplete(host, "The privilege check", r);
  }

  /** Runs a privileged command; maps sudo's own refusal. */
  private async privileged(argv: readonly string[], what: string, opts: { stdin?: Buffer; timeoutMs: number; maxOutputBytes?: number }): Promise<RemoteRun> {
    const r = await runRemote(this.opts.open, shellJoin([...becomePrefix(this.opts.become), ...argv]), { timeoutMs: opts.timeoutMs, maxOutputBytes: opts.maxOutputBytes ?? 64 * 1024, ...(opts.stdin ? { stdin: opts.stdin } : {}) });
    if (r.timed_out || (r.exit_code === null && r.signal === null)) throw incomplete(this.opts.host, what, r);
    if (this.opts.become === "sudo") {
      const e = sudoFailure(r.stderr.toString(), r.exit_code, this.opts.host, this.opts.login);
      if (e) throw e;
    }
    return r;
  }

  async writeFileAtomic(path: string, content: string, opts: WriteFileOptions): Promise<void> {
    const { dir, name } = splitPath(path);
    if (opts.mode !== undefined && (!Number.isInteger(opts.mode) || opts.mode < 0 || opts.mode > 0o7777)) {
      throw new HostgateError("invalid_params", `mode ${opts.mode} is not permission bits (0 to 0o7777).`);
    }
    if (opts.expectedSha256 && !/^[0-9a-f]{64}$/.test(opts.expectedSha256)) throw new HostgateError("invalid_params", "expectedSha256 must be 64 lowercase hex digits.");
    const bytes = Buffer.from(content, "utf8");
    const expect = opts.expectedSha256 === undefined ? "-" : opts.expectedSha256 === null ? "absent" : opts.expectedSha256;
    const args = [dir, name, opts.expectedRealDir ?? "", opts.mode === undefined ? "" : opts.mode.toString(8), expect, createHash("sha256").update(bytes).digest("hex")];
    const r = await this.privileged(["sh", "-c", WRITE_SCRIPT, "hostgate-write", ...args], `Writing ${path}`, { stdin: bytes, timeoutMs: this.opts.writeTimeoutMs ?? 30_000 });
    this.writeOutcome(path, r, opts);
  }

  /** Maps the write script's exit status and last line to the port's errors (see remote-write-script.ts). */
  private writeOutcome(path: string, r: RemoteRun, opts: WriteFileOptions): void {
    const line = /hostgate-write: (\S+)(?: (.*))?\n?$/.exec(r.stdout.toString())?.slice(1) ?? [];
    const [word, detail = ""] = line;
    const host = this.opts.host;
    const at = `${path} on ${host}`;
    const plan = "Plan the change again so the preview shows the file as it is now.";
    if (r.exit_code === 0 && word === "ok") return;
    switch (r.exit_code) {
      case 10: throw new HostgateError("not_found", `Writing ${at}: the directory ${posix.dirname(path)} does not exist or is not a directory.`);
      case 11: throw new HostgateError("precondition_failed", `${posix.dirname(path)} on ${host} no longer resolves to ${opts.expectedRealDir ?? "?"} (now ${detail}); nothing was written.`, { hint: "A directory on the path changed after approval. Plan the change again." });
      case 12: throw new HostgateError("precondition_failed", `${at} is a symlink; hostgate does not write through symlinks.`, { details: { path, host } });
      case 13: throw new HostgateError("precondition_failed", `${at} is not a regular file.`, { details: { path, host } });
      case 14: {
        const expected = opts.expectedSha256 ?? null;
        const actual = detail === "absent" ? null : detail;
        const d = (h: string | null): string => (h === null ? "absent" : `sha256 ${h}`);
        throw new HostgateError("precondition_failed", `${at} changed since the preview: expected ${d(expected)}, found ${d(actual)}.`, { hint: plan, details: { path, host, expected_sha256: expected, actual_sha256: actual } });
      }
      case 15: throw new HostgateError("unavailable", `Writing ${at}: the content did not arrive whole; the file was not replaced.`, { hint: "Retry; check the connection to the host." });
      case 16: throw new HostgateError("permission_denied", `Writing ${at}: permission denied (${detail || "write"}) for ${this.opts.login}${this.opts.become === "sudo" ? " through sudo" : ""}.`, {
        hint: this.opts.login === "root" || this.opts.become === "sudo" ? "Check the file system (read-only? immutable attribute?)." : `Log in as root or set become: sudo for ${host}.`,
        details: { path, host, login: this.opts.login, become: this.opts.become },
      });
      default: throw new HostgateError("unavailable", `Writing ${at} failed (exit ${r.exit_code ?? r.signal ?? "unknown"}): ${(word ? `${word} ${detail}` : r.stderr.toString()).trim().slice(0, 300)}`, { details: { path, host } });
    }
  }

  /**
   * Not over SSH yet: the port's contract (a held directory, O_NOFOLLOW, the approved dev + inode checked on the
   * opened file) has no remote implementation, and DeleteLogFile / TruncateLogFile's previews already refuse a
   * host whose probe reports no inode identity (SFTP does not). Always `unavailable`, naming the host.
   */
  removeFile(path: string): Promise<{ size: number }> {
    return Promise.reject(new HostgateError("unavailable", `Deleting or truncating ${path} on ${this.opts.host} over SSH is not available in this build.`, {
      hint: "Free space on that host with another remedy (plan a CleanPackageCache or VacuumJournal step) or plan a RunCommand step.",
      details: { path, host: this.opts.host },
    }));
  }

  /** See the port; runs adapters/remote-create-script.ts (its comment says how the contract is kept remotely). */
  async createRootFile(path: string, opts: { mode: number; bytes: number }): Promise<void> {
    splitPath(path);
    if (!Number.isInteger(opts.mode) || opts.mode < 0 || opts.mode > 0o7777) throw new HostgateError("invalid_params", `mode ${opts.mode} is not permission bits (0 to 0o7777).`);
    if (!Number.isSafeInteger(opts.bytes) || opts.bytes <= 0) throw new HostgateError("invalid_params", `A new file's size must be a whole number of bytes above 0 (got ${opts.bytes}).`);
    const r = await this.privileged(["sh", "-c", CREATE_SCRIPT, "hostgate-create", path, opts.mode.toString(8), String(opts.bytes)], `Creating ${path}`, { timeoutMs: 10 * 60_000 });
    const [, word = "", detail = ""] = /hostgate-create: (\S+)(?: (.*))?\n?$/.exec(r.stdout.toString()) ?? [];
    const at = `${path} on ${this.opts.host}`;
    if (r.exit_code === 0 && word === "ok") return;
    if (r.exit_code === 20) throw new HostgateError("precondition_failed", `Refused to create ${at}: ${detail}; only a directory chain that root alone can change is safe for a file root then uses by name. Nothing was created.`, { hint: "Put the file in a directory owned by root and not writable by others, e.g. /swapfile.", details: { path, host: this.opts.host } });
    if (r.exit_code === 21) throw new HostgateError("precondition_failed", `${at} exists now (a file or a link); hostgate creates only a new file. Nothing was changed.`, { hint: "Plan the change again.", details: { path, host: this.opts.host } });
    if (r.exit_code === 10) throw new HostgateError("not_found", `Creating ${at}: ${detail} does not exist or is not a directory.`);
    throw new HostgateError("unavailable", `Creating ${at} failed (exit ${r.exit_code ?? r.signal ?? "unknown"}): ${(word ? `${word} ${detail}` : r.stderr.toString()).trim().slice(0, 300)}`, { details: { path, host: this.opts.host } });
  }

  async writeSysctl(key: string, value: string): Promise<void> {
    const path = sysctlKeyPath(key, "write");
    if (/[\n\0]/.test(value)) throw new HostgateError("invalid_params", "A sysctl value is one line.");
    // The value goes on stdin to tee (never through a shell); tee writes the one /proc/sys file named by the key.
    const r = await this.privileged(["tee", "--", path], `Setting ${key}`, { stdin: Buffer.from(`${value}\n`), timeoutMs: 10_000 });
    if (r.exit_code === 0) return;
    const err = r.stderr.toString();
    if (/No such file/i.test(err)) throw new HostgateError("not_found", `Setting ${key} on ${this.opts.host}: no such sysctl.`);
    if (/Invalid argument/i.test(err)) throw new HostgateError("invalid_params", `The kernel on ${this.opts.host} refused ${JSON.stringify(value)} for ${key}.`);
    if (/denied|not permitted/i.test(err)) throw new HostgateError("permission_denied", `Setting ${key} on ${this.opts.host}: permission denied.`);
    throw new HostgateError("unavailable", `Setting ${key} on ${this.opts.host}: ${err.trim().slice(0, 300)}`);
  }

  async signal(pid: number, signal: SignalName): Promise<void> {
    if (!Number.isInteger(pid) || pid <= 0) throw new HostgateError("invalid_params", `pid ${pid} is not a positive integer.`);
    const name = SIGNALS[signal];
    if (name === undefined) throw new HostgateError("invalid_params", `signal ${signal} is not one hostgate sends (${Object.keys(SIGNALS).join(", ")}).`);
    const r = await this.privileged(["kill", "-s", name, "--", String(pid)], `Signalling pid ${pid}`, { timeoutMs: 10_000 });
    if (r.exit_code === 0) return;
    const err = r.stderr.toString();
    if (/No such process/i.test(err)) throw new HostgateError("not_found", `Signalling pid ${pid} on ${this.opts.host}: does not exist.`);
    if (/not permitted/i.test(err)) throw new HostgateError("permission_denied", `Signalling pid ${pid} on ${this.opts.host}: permission denied for ${this.opts.login}.`);
    throw new HostgateError("unavailable", `Signalling pid ${pid} on ${this.opts.host}: ${err.trim().slice(0, 300)}`);
  }

  async run(argv: readonly string[], opts: RunOptions): Promise<ExecResult> {
    if (argv.length === 0 || argv[0] === "") throw new HostgateError("invalid_params", "run needs a program (argv[0]).");
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const env = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`);
    // The remote `timeout` kills the program when the budget ends; the channel's own budget is a little longer.
    const wrapped = ["timeout", "-s", "KILL", `${Math.max(1, Math.ceil(timeoutMs / 1000))}s`, ...(env.length > 0 ? ["env", "--", ...env] : []), ...argv];
    const r = await this.privileged(wrapped, `Running ${argv[0]}`, { timeoutMs: timeoutMs + 5000, maxOutputBytes: opts.maxOutputBytes ?? 1024 * 1024 });
    const killed = r.exit_code === 137;
    return {
      command: shellJoin(argv), argv: [...argv], exit_code: killed ? null : r.exit_code, signal: killed ? "SIGKILL" : r.signal, timed_out: killed,
      duration_ms: r.duration_ms, stdout: r.stdout.toString("utf8"), stderr: r.stderr.toString("utf8"), truncated: r.truncated,
    };
  }
}
