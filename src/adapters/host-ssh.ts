import type { SFTPWrapper, Stats } from "ssh2";
import type { ExecResult } from "../core/exec.ts";
import { HostgateError } from "../core/errors.ts";
import { parseIpAddressJson } from "../core/host/ip-addr.ts";
import { shellJoin, shellQuote } from "../core/inventory/target.ts";
import type { FileOwner, HostProbe, InterfaceAddress, ProcessTableText, RunOptions, StatFs } from "../ports/host-probe.ts";
import type { SshSession } from "./exec-ssh/session.ts";
import { SshProcessReader } from "./host-ssh-ps-reader.ts";
import { sessionExecOpener } from "./remote-exec.ts";
import { readTailOverSsh } from "./host-ssh-tail.ts";

/**
 * The HostProbe of a remote host, over one SshSession of the shared pool (nothing is installed there):
 * files, directories, links and lstat through SFTP (requests pipelined on the connection's one SFTP channel);
 * statfs through OpenSSH's `statvfs@openssh.com` SFTP extension (GNU `stat -f` when the server lacks it);
 * `readTailConfined` through one fixed remote helper (host-ssh-tail.ts: SFTP cannot tell the path of an open
 * handle nor its link count); `run`, `which` and `networkAddresses` as remote commands whose every argument is
 * quoted by `shellQuote` (core/inventory/target.ts), the only quoting function.
 *
 * Errors: SFTP "no such file" → `not_found`, "permission denied" → `permission_denied`, any other failure and a
 * connection lost mid-call → `unavailable`, each naming the host; errors from dialing (`unreachable`,
 * `host_key_unknown`, `host_key_mismatch`, `invalid_target`) pass through as the pool raised them.
 *
 * The process table of a listing is one round trip (`readProcessTable`, host-ssh-ps-reader.ts: a `sh` loop kept
 * on one exec channel runs one awk reading every /proc/[pid] file per call), not a few SFTP requests per process (issue 20: 200
 * processes cost 85–250 ms that way); a host without `sh` or `awk` falls back to those SFTP reads. A /proc or
 * /sys file is opened without a stat first (the kernel makes them: no FIFO there); it is read until a read
 * returns nothing (a record-based seq_file gives about one page per read), except a `singleRead` file and the
 * KEPT_OPEN ones (single_open files: one read returns them whole), whose short read is their end. The few host-wide /proc files a read-only tool reads on every call (KEPT_OPEN) keep their SFTP handle for
 * the channel's life: a read at offset 0 makes the kernel generate them afresh, so such a call is one round trip
 * (the read) instead of two (open, then read) plus a close.
 *
 * Differences from the local probe, by necessity: SFTP has no O_NOFOLLOW/O_NONBLOCK, so a file outside /proc
 * and /sys is lstat'ed first and anything but a regular file (a FIFO would block the host's SFTP server, a
 * symlink would be followed) is refused `unavailable`; `which` walks the login's PATH, not the daemon's, then
 * /usr/local/sbin, /usr/sbin, /sbin and the bin directories (a non-root login's PATH has no sbin, where the tools
 * a change runs through sudo live).
 */

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
/**
 * readRecords on the host: `$1` the record device, `$2` the cap + 1 in bytes. dd reads without blocking until
 * EAGAIN; tail keeps the newest `$2` bytes (so the newest records are kept past the cap). sh's status is tail's:
 * dd's errors are read from stderr.
 */
const RECORDS_SCRIPT = 'dd if="$1" iflag=nonblock bs=65536 status=none | tail -c "$2"';
/** Bytes asked per SFTP read (ssh2 splits larger reads into the server's limit itself). */
const CHUNK = 64 * 1024;
/** Bytes of the first read of a `singleRead` file (a full one is read on from there). */
const SMALL_FIRST_READ = 4096;
/** Largest /proc or /sys file read whole when no cap is given (as the local probe). */
const PROC_MAX_BYTES = 16 * 1024 * 1024;
/** SFTP status codes (draft-ietf-secsh-filexfer-02). */
const FX_NO_SUCH_FILE = 2;
const FX_PERMISSION_DENIED = 3;

/**
 * Host-wide /proc files read whole on every call of a read-only tool, whose SFTP handle is kept open for the
 * channel's life (never a path a request can shape, never a per-process file: a pid can be reused). The server
 * seeks before each read (OpenSSH sftp-server), and a seek to 0 makes the kernel's seq_file generate the text
 * again (fs/seq_file.c seq_lseek → traverse): every read sees the values of that moment.
 */
const KEPT_OPEN = new Set(["/proc/meminfo", "/proc/loadavg", "/proc/uptime", "/proc/stat"]);
/** The kept handles of each SFTP channel (a new channel opens its own). */
const keptHandles = new WeakMap<SFTPWrapper, Map<string, Promise<Buffer>>>();

type Cb<T> = (err: Error | undefined | null, v: T) => void;

export class SshHostProbe implements HostProbe {
  private readonly host: string;
  private turn: Promise<SFTPWrapper> | null = null;
  /** Set once the host could not run the process table reader (no sh or awk): listings read files over SFTP. */
  private noProcessReader = false;
  private processReader: SshProcessReader | undefined;

  /** `session`: the host's pooled session; `hostName`: how errors name it (default the session's user@host:port). */
  constructor(private readonly session: SshSession, hostName?: string) {
    this.host = hostName ?? session.label;
  }

  /** Maps an SFTP or transport error to not_found / permission_denied / unavailable, naming host and path. */
  private error(err: unknown, path: string): HostgateError {
    if (err instanceof HostgateError) return err;
    const code = (err as { code?: unknown }).code;
    if (code === FX_NO_SUCH_FILE) return new HostgateError("not_found", `${path} does not exist on ${this.host}.`, { cause: err, details: { host: this.host } });
    if (code === FX_PERMISSION_DENIED) {
      return new HostgateError("permission_denied", `Permission denied reading ${path} on ${this.host}.`, {
        hint: "The SSH login user cannot read it; use a login (inventory user) that can.",
        cause: err,
        details: { host: this.host },
      });
    }
    const lost = typeof code !== "number";
    return new HostgateError("unavailable", lost ? `${this.host}: the SSH connection was lost while reading ${path}: ${(err as Error).message}` : `Could not read ${path} on ${this.host}: ${(err as Error).message}`, {
      hint: lost ? "Check that the host is up and sshd runs; the call can be retried (a new connection is dialed)." : undefined,
      cause: err,
      details: { host: this.host },
    });
  }

  /**
   * The connection's SFTP channel for this event-loop turn: the pool re-checks the host key once per turn, not
   * once per request (a process listing sends hundreds at once), and the socket's writes of the turn are joined.
   */
  private channel(): Promise<SFTPWrapper> {
    if (!this.turn) {
      this.turn = this.session.sftp().then((s) => {
        corkTurn(s);
        return s;
      });
      setImmediate(() => { this.turn = null; });
    }
    return this.turn;
  }

  /** Runs one SFTP request, mapping its error. */
  private async sftp<T>(path: string, f: (s: SFTPWrapper, cb: Cb<T>) => void): Promise<T> {
    const s = await this.channel();
    try {
      return await new Promise<T>((resolve, reject) => {
        try {
          f(s, (err, v) => { if (err) reject(err); else resolve(v); });
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
    } catch (err) {
      throw this.error(err, path);
    }
  }

  async readText(path: string, opts: { maxBytes?: number; singleRead?: boolean; encoding?: "utf8" | "latin1" } = {}): Promise<string> {
    const generated = path.startsWith("/proc/") || path.startsWith("/sys/");
    if (!generated) {
      const st = await (opts.maxBytes === undefined ? this.sftp<Stats>(path, (s, cb) => { s.stat(path, cb); }) : this.lstatRaw(path));
      if (!st.isFile()) {
        throw new HostgateError("unavailable", `${path} on ${this.host} is not a regular file${st.isSymbolicLink() ? " (a symlink)" : ""}; it is not read over SFTP.`, { details: { host: this.host } });
      }
    }
    const max = opts.maxBytes ?? (generated ? PROC_MAX_BYTES : Number.MAX_SAFE_INTEGER);
    const s = await this.channel();
    const kept = KEPT_OPEN.has(path);
    const handle = kept ? await this.keptHandle(s, path) : await this.sftp<Buffer>(path, (x, cb) => { x.open(path, "r", cb); });
    const readAt = (pos: number, want: number): Promise<Buffer> =>
      this.sftp<Buffer>(path, (x, cb) => { x.read(handle, Buffer.allocUnsafe(want), 0, want, pos, (e, got, data) => { cb(e, e ? Buffer.alloc(0) : data.subarray(0, got)); }); });
    try {
      const parts: Buffer[] = [];
      let length = 0;
      while (length < max) {
        // A file read in one read(2) is mostly small (/proc/[pid]/stat, status, cmdline): 4 KiB first, not 64.
        const want = Math.min(opts.singleRead === true && length === 0 ? SMALL_FIRST_READ : CHUNK, max - length);
        const ahead = opts.singleRead === true ? 0 : Math.min(CHUNK, max - length - want);
        // The read that will most likely say "end of file" is sent with the first one: one round trip, not two.
        const [a, b] = await Promise.all([readAt(length, want), ahead > 0 ? readAt(length + want, ahead) : Promise.resolve(null)]);
        parts.push(a);
        length += a.length;
        if (a.length === 0 || ((opts.singleRead === true || kept) && a.length < want)) break;
        if (a.length < want) {
          // A short read of a regular file with nothing after it is its end. A generated file is not done: a
          // record-based seq_file (mountinfo, net/tcp, swaps) answers at most about one page per read(2), and a
          // read past its end says nothing about the bytes between (it gave 4 KiB of a 4.6 KiB mountinfo).
          if (!generated && (b === null || b.length === 0)) break;
          continue; // read on from where it stopped (b is dropped)
        }
        if (b !== null) {
          parts.push(b);
          length += b.length;
          if (b.length === 0) break;
        }
      }
      return Buffer.concat(parts).toString(opts.encoding ?? "utf8");
    } catch (err) {
      if (kept) keptHandles.get(s)?.delete(path); // opened afresh by the next call
      throw err;
    } finally {
      // Not awaited: the answer does not depend on it and the next request is queued behind it anyway.
      if (!kept) s.close(handle, () => undefined);
    }
  }

  /** The channel's kept handle of a KEPT_OPEN file, opened on first use (a failed open is not kept). */
  private keptHandle(s: SFTPWrapper, path: string): Promise<Buffer> {
    let handles = keptHandles.get(s);
    if (!handles) keptHandles.set(s, (handles = new Map<string, Promise<Buffer>>()));
    let h = handles.get(path);
    if (!h) {
      const opened = this.sftp<Buffer>(path, (x, cb) => { x.open(path, "r", cb); });
      handles.set(path, opened);
      const all = handles;
      opened.catch(() => { if (all.get(path) === opened) all.delete(path); });
      h = opened;
    }
    return h;
  }

  /**
   * One answer of the host's kept process reader (host-ssh-ps-reader.ts: one exec channel kept between calls);
   * null when the host cannot run it (the caller reads files one by one).
   */
  async readProcessTable(): Promise<ProcessTableText | null> {
    if (this.noProcessReader) return null;
    this.processReader ??= new SshProcessReader(sessionExecOpener(this.session), this.host);
    const t = await this.processReader.read();
    if (t === null) this.noProcessReader = true;
    return t;
  }

  /** Closes what this probe keeps open on the host (the process reader's channel); the connection stays pooled. */
  close(): void {
    this.processReader?.close();
  }

  readTailConfined(path: string, within: string, opts: { maxBytes: number; maxLines: number }): Promise<{ text: string; size: number; startOffset: number; owner: FileOwner }> {
    return readTailOverSsh(this.session, this.host, path, within, opts);
  }

  /**
   * `dd if=PATH iflag=nonblock | tail -c MAX+1` on the host (SFTP has no O_NONBLOCK: a read of /dev/kmsg would wait
   * for the next record). dd stops at the first EAGAIN with "Resource temporarily unavailable" (and exit 1): that
   * is the end. tail keeps the newest bytes, one more than the cap, so more than `maxBytes` arriving means older
   * records were dropped: the partial first record is cut off and `truncated` set (the local probe's ring).
   */
  async readRecords(path: string, opts: { maxBytes: number }): Promise<{ text: string; truncated: boolean }> {
    const r = await this.run(["sh", "-c", RECORDS_SCRIPT, "sh", path, String(opts.maxBytes + 1)], { maxOutputBytes: opts.maxBytes + 1, timeoutMs: DEFAULT_TIMEOUT_MS });
    if (r.timed_out) throw new HostgateError("timeout", `Reading ${path} on ${this.host} took longer than ${DEFAULT_TIMEOUT_MS / 1000} s.`, { details: { host: this.host } });
    const err = r.stderr.split("\n").filter((l) => l.trim() !== "" && !/Resource temporarily unavailable/i.test(l)).join("\n");
    if (err !== "" || r.exit_code !== 0) {
      if (/No such file/i.test(err)) throw new HostgateError("not_found", `${path} does not exist on ${this.host}.`, { details: { host: this.host } });
      if (/denied|not permitted/i.test(err)) {
        throw new HostgateError("permission_denied", `Permission denied reading ${path} on ${this.host}.`, {
          hint: "The SSH login user cannot read the kernel log there (kernel.dmesg_restrict=1 needs CAP_SYSLOG); use a login (inventory user) that can.",
          details: { host: this.host },
        });
      }
      throw new HostgateError("unavailable", `Could not read ${path} on ${this.host}: ${err.split("\n")[0] ?? `exit ${r.exit_code}`}`, { details: { host: this.host } });
    }
    if (Buffer.byteLength(r.stdout) <= opts.maxBytes) return { text: r.stdout, truncated: false };
    const nl = r.stdout.indexOf("\n");
    return { text: nl < 0 ? "" : r.stdout.slice(nl + 1), truncated: true };
  }

  readDir(path: string): Promise<string[]> {
    return this.sftp<string[]>(path, (s, cb) => { s.readdir(path, (e, list) => { cb(e, e ? [] : list.map((x) => x.filename).filter((n) => n !== "." && n !== "..")); }); });
  }

  readLink(path: string): Promise<string> {
    return this.sftp<string>(path, (s, cb) => { s.readlink(path, cb); });
  }

  realPath(path: string): Promise<string> {
    return this.sftp<string>(path, (s, cb) => { s.realpath(path, cb); });
  }

  private lstatRaw(path: string): Promise<Stats> {
    return this.sftp<Stats>(path, (s, cb) => { s.lstat(path, cb); });
  }

  async stat(path: string): Promise<{ size: number; mtime_ms: number; is_file: boolean; is_directory: boolean; is_symlink: boolean; mode: number; uid: number }> {
    const st = await this.lstatRaw(path);
    // SFTP v3 carries whole seconds only: mtime_ms is a multiple of 1000 (the local probe has sub-second figures).
    return { size: st.size, mtime_ms: st.mtime * 1000, is_file: st.isFile(), is_directory: st.isDirectory(), is_symlink: st.isSymbolicLink(), mode: st.mode & 0o7777, uid: st.uid };
  }

  async statFs(path: string): Promise<StatFs> {
    type Vfs = Record<"f_bsize" | "f_frsize" | "f_blocks" | "f_bfree" | "f_bavail" | "f_files" | "f_ffree", number | bigint>;
    const s = await this.channel();
    const ext = s as unknown as { ext_openssh_statvfs?: (p: string, cb: Cb<Vfs>) => void; _extensions?: Record<string, string> };
    if (ext._extensions?.["statvfs@openssh.com"] !== undefined && ext.ext_openssh_statvfs) {
      const v = await this.sftp<Vfs>(path, (x, cb) => { (x as unknown as typeof ext).ext_openssh_statvfs!(path, cb); });
      // statvfs counts blocks in f_frsize units (statfs(2), which the local probe reads, in f_bsize: equal on Linux).
      return { block_size: Number(v.f_frsize || v.f_bsize), blocks: Number(v.f_blocks), blocks_free: Number(v.f_bfree), blocks_available: Number(v.f_bavail), files: Number(v.f_files), files_free: Number(v.f_ffree) };
    }
    // GNU stat: %S fundamental block size, %b blocks, %f free, %a available to non-root, %c inodes, %d free inodes.
    const r = await this.run(["stat", "-f", "-c", "%S %b %f %a %c %d", "--", path]);
    const f = r.stdout.trim().split(" ").map(Number);
    if (r.exit_code !== 0 || f.length !== 6 || f.some((n) => !Number.isFinite(n))) {
      if (/No such file/.test(r.stderr)) throw new HostgateError("not_found", `${path} does not exist on ${this.host}.`, { details: { host: this.host } });
      throw new HostgateError("unavailable", `statfs of ${path} on ${this.host} failed: the SFTP server has no statvfs extension and \`stat -f\` said: ${r.stderr.trim().slice(0, 200)}`, { details: { host: this.host } });
    }
    return { block_size: f[0]!, blocks: f[1]!, blocks_free: f[2]!, blocks_available: f[3]!, files: f[4]!, files_free: f[5]! };
  }

  async networkAddresses(): Promise<Record<string, InterfaceAddress[]>> {
    const r = await this.run(["ip", "-j", "address", "show"]);
    if (r.exit_code !== 0) {
      throw new HostgateError("unavailable", `${this.host}: \`ip -j address show\` failed (exit ${r.exit_code ?? r.signal}): ${r.stderr.trim().slice(0, 200)}`, {
        hint: "The host needs iproute2 (4.14 or later) for interface addresses.",
        details: { host: this.host },
      });
    }
    return parseIpAddressJson(r.stdout);
  }

  /**
   * The first executable file of that name in the login's PATH, walked by a fixed script with the name as its
   * one argument (not `command -v`, which answers builtins such as `echo` with a bare name, where the local
   * probe finds /usr/bin/echo). A name with `/` or an empty one is null.
   */
  async which(name: string): Promise<string | null> {
    if (name === "" || name.includes("/")) return null;
    // The login's PATH first, then the system directories a non-root login's PATH lacks on Debian (sbin: useradd,
    // sysctl, sshd), where root's PATH and sudo's secure_path find the tools the mutator runs.
    const script = 'p="$PATH:/usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin:/usr/bin:/bin"; IFS=:; for d in $p; do [ -n "$d" ] && [ -f "$d/$1" ] && [ -x "$d/$1" ] && { printf "%s\\n" "$d/$1"; exit 0; }; done; exit 1';
    const r = await this.run(["sh", "-c", script, "sh", name]);
    const found = r.stdout.replace(/\n$/, "");
    return r.exit_code === 0 && found.startsWith("/") ? found : null;
  }

  /**
   * Runs argv on the host without shell semantics: `LC_ALL=C.UTF-8 [env…] exec argv…`, every word quoted by
   * `shellQuote`. Throws `invalid_params` for an empty argv, a program name starting with `-` (`exec` would read
   * it as an option; dash's `exec` takes no `--`), an env name that is not an identifier, or an argument no argv
   * can carry (NUL, lone surrogate); `unavailable` when the connection is lost mid-command.
   * A timeout kills the remote process group (SIGKILL) and resolves with `timed_out`.
   */
  async run(argv: readonly string[], opts: RunOptions = {}): Promise<ExecResult> {
    if (argv.length === 0) throw new HostgateError("invalid_params", "run() needs a non-empty argv.");
    if (argv[0]!.startsWith("-")) throw new HostgateError("invalid_params", `The program name ${JSON.stringify(argv[0])} starts with '-'.`, { hint: "Name the program by its name or absolute path." });
    const env = { LC_ALL: "C.UTF-8", ...opts.env };
    for (const k of Object.keys(env)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new HostgateError("invalid_params", `Environment name ${JSON.stringify(k)} is not a shell identifier.`, { hint: "Use letters, digits and _ (not starting with a digit)." });
    }
    const assignments = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`).join(" ");
    const command = `${assignments} exec ${shellJoin(argv)}`;
    const out = await this.session.exec(command, { timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, maxOutputBytes: opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT });
    if (out.error !== null && !out.timed_out) {
      throw new HostgateError("unavailable", `${this.host}: ${out.error} (${argv[0]})`, { hint: "Check that the host is up and sshd runs; the call can be retried.", details: { host: this.host } });
    }
    return {
      command: argv.join(" "),
      argv: [...argv],
      exit_code: out.exit_code,
      signal: out.timed_out ? "SIGKILL" : out.signal,
      timed_out: out.timed_out,
      duration_ms: out.duration_ms,
      stdout: out.stdout,
      stderr: out.stderr,
      truncated: out.truncated,
    };
  }
}

const corked = new WeakSet<object>();
/**
 * Holds the connection's socket writes until the end of this event-loop turn, so a batch of requests leaves in
 * one write (with Nagle off, each SSH packet would be its own syscall and segment). ssh2 keeps the socket as the
 * client's `_sock`; without it this does nothing.
 */
function corkTurn(s: SFTPWrapper): void {
  const sock = (s as unknown as { _client?: { _sock?: { cork?: () => void; uncork?: () => void } } })._client?._sock;
  if (!sock?.cork || !sock.uncork || corked.has(sock)) return;
  corked.add(sock);
  sock.cork();
  setImmediate(() => {
    corked.delete(sock);
    sock.uncork!();
  });
}
