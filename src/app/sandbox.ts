import { HostgateError, toHostgateError } from "../core/errors.ts";
import { chooseSandbox, confine, parseProbe, probeCommand, type HostSandbox, type SandboxFacts, type SandboxMechanism } from "../core/sandbox/confine.ts";
import { shellQuote } from "../core/inventory/target.ts";
import { ownHomes } from "../core/sandbox/login.ts";
import { helperCacheDir, helperCachePath, helperCheckCommand, judgeHelperCheck } from "../core/sandbox/helper-cache.ts";
import type { Become } from "../core/inventory/become.ts";
import type { ExecEndpoint, Executor } from "../ports/executor.ts";
import type { FileUploader } from "../ports/file-upload.ts";

/**
 * Which sandbox each host has (core/sandbox/confine.ts), probed once per host and kept for `ttl_ms`
 * (default 10 minutes, so a host that gains or loses bubblewrap is noticed). A probe is two round trips: the
 * fixed probe line (who logs in, which programs, systemd or not), then one confined check run of the chosen
 * mechanism, which must print its marker as a uid other than 0 and find `/etc` read-only; a mechanism whose
 * check run fails is dropped and the next one checked, so a host where bubblewrap cannot create namespaces
 * falls back to systemd-run or to none. A host that cannot be reached is not cached (the error is thrown as
 * the executor's HostgateError).
 * An SSH host with a root login and the architecture of the daemon's static helper build (`remote_helper`)
 * gets the hostgate-confine helper: between those two round trips the helper's cache in the login's home is
 * checked (one exec: hash, owner and mode of the file and of every directory above it), filled over SFTP when
 * the file is missing or another, and checked again (core/sandbox/helper-cache.ts says why a file that passes
 * can be run at every command without hashing it again). Any failure there keeps bubblewrap, and the summary
 * says why.
 * A non-root login on a host configured `become: sudo` is probed a second time through `sudo -n` (the same fixed
 * probe line, one quoted word): when that answers as root, the host's facts are root's, marked `via_sudo`, and
 * every confined command runs through `sudo -n` (core/sandbox/confine.ts `throughSudo`), so it gets the
 * unprivileged identity without the login's groups; the helper is not used then (it is sent over SFTP as the
 * login, whose cache root's commands must not run from). When sudo -n fails, the login's own facts stay, with
 * sudo's answer (`sudo_failed`), and core/sandbox/login.ts decides whether bubblewrap as the login can do.
 */

/** The helper build the daemon sends to SSH hosts, and how (adapters/confine-helper.ts `uploadableConfineHelper`). */
export interface RemoteHelper {
  /** The static build's bytes, their SHA-256 (hex) and its architecture as `uname -m` names it. */
  bytes: Uint8Array;
  sha256: string;
  arch: string;
  uploader: FileUploader;
}

/** Where a host's commands run: the executor and the endpoint it dials (ignored by the local executor). */
export interface SandboxTarget {
  /**
   * Cache key: `local` (the daemon's own host: the only one that may use `local_helper`), or `user@host:port` plus
   * its jump chain, and ` (become: sudo)` when `become` is sudo (app/exec-on-host.ts `sandboxTarget`).
   */
  key: string;
  executor: Executor;
  target: ExecEndpoint;
  jumps?: readonly ExecEndpoint[] | undefined;
  /** The host's `become` (inventory): `sudo` lets a non-root login's sandbox start as root through `sudo -n`. */
  become?: Become | undefined;
}

const CHECK_MARK = "hostgate-sandbox-ok";
/** The check run: marker, uid, and whether /etc is writable (it must not be). */
const CHECK_LINE = `echo ${CHECK_MARK}; id -u; [ -w /etc ] && echo etc-writable; true`;
const PROBE_TIMEOUT_MS = 15_000;
/** The probe's output cap: it lists the host's mount table too (core/sandbox/mounts.ts), room for ten thousand mounts or so. */
const PROBE_MAX_OUTPUT_BYTES = 1024 * 1024;

export class Sandboxes {
  private readonly cache = new Map<string, { at: number; value: Promise<HostSandbox> }>();
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly localHelper: string | undefined;
  private readonly remoteHelper: RemoteHelper | undefined;
  private readonly acceptLoginGroups: readonly string[];

  /**
   * `local_helper`: the absolute path of the hostgate-confine helper for the host keyed `local` (checked by
   * adapters/confine-helper.ts `localConfineHelper`: only root can change it); the probe offers it to
   * `chooseSandbox` before bubblewrap, and its check run must pass like any mechanism's.
   * `remote_helper`: the build placed in the cache of every other host whose login is root and whose
   * architecture is the build's (see above); absent: SSH hosts use bubblewrap or systemd-run.
   * `accept_login_groups`: config `exec.accept_login_groups` (core/sandbox/login.ts).
   */
  constructor(opts: { ttl_ms?: number; now?: () => number; local_helper?: string | undefined; remote_helper?: RemoteHelper | undefined; accept_login_groups?: readonly string[] } = {}) {
    this.acceptLoginGroups = opts.accept_login_groups ?? [];
    this.ttlMs = opts.ttl_ms ?? 600_000;
    this.now = opts.now ?? Date.now;
    this.localHelper = opts.local_helper;
    this.remoteHelper = opts.remote_helper;
  }

  /** The host's sandbox, probing it when not known or stale. Rejects with the executor's HostgateError when the host cannot be reached. */
  forHost(t: SandboxTarget): Promise<HostSandbox> {
    const hit = this.cache.get(t.key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = probe(t, t.key === "local" ? { local: this.localHelper } : { remote: this.remoteHelper }, this.acceptLoginGroups);
    this.cache.set(t.key, { at: this.now(), value });
    value.catch(() => { if (this.cache.get(t.key)?.value === value) this.cache.delete(t.key); });
    return value;
  }

  /** What is known about a host without contacting it (doctor, get_host_details), or undefined. */
  async known(key: string): Promise<HostSandbox | undefined> {
    const hit = this.cache.get(key);
    return hit ? hit.value.catch(() => undefined) : undefined;
  }

  /** Every host probed so far (key, sandbox), for doctor; a probe still running is awaited, failed ones are left out. */
  async probed(): Promise<[string, HostSandbox][]> {
    const out: [string, HostSandbox][] = [];
    for (const key of [...this.cache.keys()]) {
      const sb = await this.known(key);
      if (sb) out.push([key, sb]);
    }
    return out;
  }

  /** Forgets a host (its key changed, it left the inventory). */
  forget(key: string): void {
    this.cache.delete(key);
  }
}

async function run(t: SandboxTarget, command: string, max_output_bytes = 16_384): Promise<{ stdout: string; stderr: string; ok: boolean }> {
  const r = await t.executor.exec({ target: t.target, jumps: t.jumps, command, timeout_ms: PROBE_TIMEOUT_MS, max_output_bytes });
  return { stdout: r.stdout, stderr: r.stderr, ok: r.exit_code === 0 && r.error === null };
}

async function probe(t: SandboxTarget, helper: { local?: string | undefined; remote?: RemoteHelper | undefined }, acceptLoginGroups: readonly string[]): Promise<HostSandbox> {
  const p = await run(t, probeCommand(), PROBE_MAX_OUTPUT_BYTES);
  let facts;
  try {
    facts = parseProbe(p.stdout);
  } catch (e) {
    throw new HostgateError("backend_error", `${t.key}: ${(e as Error).message}`, { hint: "The login must run a POSIX shell with id, uname and command -v (no forced command)." });
  }
  if (facts.uid !== 0 && t.become === "sudo" && t.key !== "local") facts = await probeThroughSudo(t, facts);
  const failures: Partial<Record<SandboxMechanism, string>> = {};
  if (helper.local !== undefined) facts.programs.confine_helper = helper.local;
  else if (facts.via_sudo) failures["hostgate-confine"] = "the login reaches root through sudo -n, and the helper is sent over SFTP as the login, so no cache of it is root's alone";
  else if (helper.remote !== undefined) {
    const placed = await placeHelper(t, facts, helper.remote);
    if ("path" in placed) facts.programs.confine_helper = placed.path;
    else failures["hostgate-confine"] = placed.reason;
  }
  for (;;) {
    const sb = chooseSandbox(facts, failures, { accept_login_groups: acceptLoginGroups });
    if (!sb.mechanism) return sb;
    const wrapped = confine(["sh", "-c", CHECK_LINE], sb, { network: "none", timeout_sec: 15, run_id: `probe-${Math.random().toString(36).slice(2, 10)}` });
    let why: string | null;
    try {
      const c = await run(t, wrapped.command);
      const lines = c.stdout.split("\n");
      why = lines[0] !== CHECK_MARK ? firstLine(c.stderr) || `exit without the marker (${JSON.stringify(c.stdout.slice(0, 80))})`
        : lines[1] === "0" ? "the command still ran as uid 0"
        : lines.includes("etc-writable") ? "/etc was writable inside it"
        : null;
    } catch (e) {
      const h = toHostgateError(e);
      if (h.code !== "backend_error") throw h;
      why = h.message;
    }
    if (why === null) return sb;
    failures[sb.mechanism] = why;
  }
}

/**
 * The probe again through `sudo -n` (a non-root login, `become: sudo`): root's facts marked `via_sudo` (with the
 * login's uid and homes, hidden too) when sudo answered as uid 0, else the login's facts with `sudo_failed`.
 */
async function probeThroughSudo(t: SandboxTarget, login: SandboxFacts): Promise<SandboxFacts> {
  const r = await run(t, `exec sudo -n -- sh -c ${shellQuote(probeCommand())}`, PROBE_MAX_OUTPUT_BYTES);
  let root: SandboxFacts | null;
  try {
    root = parseProbe(r.stdout);
  } catch {
    root = null;
  }
  if (root === null || root.uid !== 0) return { ...login, sudo_failed: firstLine(r.stderr) || `sudo -n answered without root (exit ${r.ok ? 0 : "non-zero"})` };
  // The wrapper runs under `sh -c` through sudo whatever the login shell is.
  return { ...root, posix_shell: true, via_sudo: { login_uid: login.uid, login_homes: ownHomes(login) } };
}

function firstLine(s: string): string {
  return s.split("\n").find((l) => l.trim() !== "")?.trim().slice(0, 200) ?? "";
}

/**
 * Puts the daemon's helper build in the root login's cache on `t` (core/sandbox/helper-cache.ts): checked, and
 * when the file is missing or not the build, uploaded and checked again. `{ path }` when it may be used, else
 * `{ reason }` (not root, another architecture, no usable home, a directory others can write, an upload that
 * failed). Rejects only with the executor's errors when the host cannot be reached.
 */
async function placeHelper(t: SandboxTarget, f: SandboxFacts, h: RemoteHelper): Promise<{ path: string } | { reason: string }> {
  if (f.uid !== 0) return { reason: `the login is uid ${f.uid}, not root (the helper drops from root to nobody itself)` };
  if (f.arch !== h.arch) return { reason: `the host is ${f.arch}, the daemon's helper build ${h.arch}` };
  if (f.home === undefined) return { reason: "the login's $HOME is not a plain absolute path" };
  const path = helperCachePath(f.home, h.sha256);
  // The check line is POSIX sh: through `sh -c` when the login shell is not one (zsh, fish…).
  const line = f.posix_shell ? helperCheckCommand(path) : `exec sh -c ${shellQuote(helperCheckCommand(path))}`;
  const check = async (): Promise<string | null> => judgeHelperCheck((await run(t, line)).stdout, path, h.sha256);
  const first = await check();
  if (first === null) return { path };
  // Only the file itself is replaced; a directory above it that others could change is not hostgate's to fix.
  if (first !== "missing" && !first.startsWith(`${path} `)) return { reason: `its cache is unsafe: ${first}` };
  const dir = helperCacheDir(f.home);
  try {
    await h.uploader.put({ target: t.target, jumps: t.jumps }, [dir.slice(0, dir.lastIndexOf("/")), dir], path, h.bytes, 0o700);
  } catch (e) {
    return { reason: `the upload to ${path} failed: ${toHostgateError(e).message}` };
  }
  const second = await check();
  return second === null ? { path } : { reason: `its cache failed the check after the upload: ${second}` };
}
