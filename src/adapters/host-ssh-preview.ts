import { HostgateError } from "../core/errors.ts";
import { becomePrefix, sudoFailure, type Become } from "../core/inventory/become.ts";
import { shellJoin } from "../core/inventory/target.ts";
import type { ExecResult } from "../core/exec.ts";
import type { FileOwner, FileStat, HostProbe, InterfaceAddress, ProcessTableText, RunOptions, StatFs } from "../ports/host-probe.ts";
import { incomplete, runRemote, type OpenExec, type RemoteRun } from "./remote-exec.ts";

/** What {@link SshPreviewProbe} needs: the login's own probe, an exec opener on the same session, who and how. */
export interface SshPreviewProbeOptions {
  /** The host's probe as the login user (SshHostProbe: SFTP and argv): every read is tried through it first. */
  login: HostProbe;
  /** Opens an exec channel on the host's pooled connection (remote-exec.ts sessionExecOpener). */
  open: OpenExec;
  /** The host's inventory name (messages). */
  host: string;
  /** The SSH login user. */
  loginUser: string;
  /** The inventory's `become` for this host: `sudo` lets a read the login may not do be retried as root. */
  become: Become;
  /** Budget of one remote command, in milliseconds (default 15 000). */
  timeoutMs?: number;
}

/** Largest file read whole through the privileged reader when no `maxBytes` is given (as the local probe's /proc cap). */
const MAX_WHOLE_BYTES = 16 * 1024 * 1024;
/**
 * GNU `stat -c` format of {@link SshPreviewProbe.stat}: raw mode (hex), size, mtime (s), device (decimal st_dev),
 * inode, links, owner uid, blocks and the block unit of %b. Without -L: lstat(2), a final link is not followed.
 */
export const STAT_FORMAT = "%f %s %Y %d %i %h %u %b %B";
const S_IFMT = 0o170000;

/** Parses one line of {@link STAT_FORMAT}; null when it is not that shape. */
export function parseStatLine(line: string): FileStat | null {
  const f = line.trim().split(" ");
  if (f.length !== 9 || !/^[0-9a-f]+$/i.test(f[0]!) || f.slice(1).some((x) => !/^\d+$/.test(x))) return null;
  const raw = parseInt(f[0]!, 16);
  const [size, mtime, dev, ino, nlink, uid, blocks, unit] = f.slice(1).map(Number) as [number, number, number, number, number, number, number, number];
  const type = raw & S_IFMT;
  return {
    size, mtime_ms: mtime * 1000, is_file: type === 0o100000, is_directory: type === 0o040000, is_symlink: type === 0o120000,
    mode: raw & 0o7777, dev, ino, nlink, uid, blocks_bytes: blocks * unit,
  };
}

/**
 * The probe previews and execute's re-checks read an SSH host through (ActionContext.preview_host, issue 24/20).
 * Every read is first made as the login user, exactly as the direct read-only tools make it (the login's
 * SshHostProbe). Only when that is refused `permission_denied` and the host is configured `become: sudo` (and
 * the login is not root already) is it made again as root, with one fixed argv per kind of read behind
 * `sudo -n --`, every word quoted by core/inventory/target.ts shellJoin: `dd if=PATH iflag=nonblock[,nofollow,
 * count_bytes]` (a capped read never follows a final link, as the local probe's O_NOFOLLOW), `stat -c FORMAT --
 * PATH`, `find -H PATH -mindepth 1 -maxdepth 1 -printf '%f\0'`, `realpath -e -z -- PATH`, `readlink -z -- PATH`.
 * No argument is ever shaped into a command; paths must be absolute (`invalid_params` otherwise).
 *
 * `stat` is always `stat -c STAT_FORMAT` (SFTP reports no device, inode, link count or owner), so a preview can
 * pin a file's identity for removeFile; `realPath` is always `realpath -e` (SFTP's accepts a missing last
 * component, the local probe's does not). Everything else (run, which, statFs, tails, records, addresses, the
 * process table) is the login's: previews run their simulations unprivileged.
 *
 * Errors: `not_found`, `permission_denied` (the login may not read it and the host is not `become: sudo`, or
 * root may not either), `sudo_password_required` / `privilege_unavailable` (sudo's own refusal, sudoFailure),
 * `unavailable` (a final link on a capped read, a file over 16 MiB read whole, a lost connection, anything else).
 */
export class SshPreviewProbe implements HostProbe {
  readonly readProcessTable?: () => Promise<ProcessTableText | null>;

  constructor(private readonly o: SshPreviewProbeOptions) {
    const login = o.login;
    if (login.readProcessTable) this.readProcessTable = () => login.readProcessTable!();
  }

  /** Whether a read the login may not do is retried as root (`become: sudo` and a non-root login). */
  get elevates(): boolean {
    return this.o.become === "sudo" && this.o.loginUser !== "root";
  }

  /** Runs `login` and, when it is refused permission_denied on a host that elevates, `root`. */
  private async loginThenRoot<T>(login: () => Promise<T>, root: () => Promise<T>): Promise<T> {
    try {
      return await login();
    } catch (err) {
      if (this.elevates && err instanceof HostgateError && err.code === "permission_denied") return root();
      throw err;
    }
  }

  /** Runs one fixed argv (as root when `asRoot`: `sudo -n --` in front); maps timeouts and sudo's own refusal. */
  private async command(argv: readonly string[], path: string, asRoot: boolean, maxOutputBytes: number): Promise<RemoteRun> {
    if (!path.startsWith("/")) throw new HostgateError("invalid_params", `${JSON.stringify(path.slice(0, 200))} is not an absolute path.`, { hint: "Give the full path, starting with /." });
    const command = `LC_ALL=C.UTF-8 exec ${shellJoin([...(asRoot ? becomePrefix("sudo") : []), ...argv])}`;
    const r = await runRemote(this.o.open, command, { timeoutMs: this.o.timeoutMs ?? 15_000, maxOutputBytes });
    if (r.timed_out || (r.exit_code === null && r.signal === null)) throw incomplete(this.o.host, `Reading ${path}`, r);
    if (asRoot) {
      const e = sudoFailure(r.stderr.toString(), r.exit_code, this.o.host, this.o.loginUser);
      if (e) throw e;
    }
    if (r.exit_code !== 0) throw this.failure(r.stderr.toString(), path, asRoot, argv[0]!);
    return r;
  }

  /** The error for a fixed command that failed, from its (C locale) message. */
  private failure(stderr: string, path: string, asRoot: boolean, tool: string): HostgateError {
    const details = { host: this.o.host, path };
    if (/No such file or directory|Not a directory/.test(stderr)) return new HostgateError("not_found", `${path} does not exist on ${this.o.host}.`, { details });
    if (/Permission denied|Operation not permitted/.test(stderr)) {
      return new HostgateError("permission_denied", `Permission denied reading ${path} on ${this.o.host}${asRoot ? " (as root through sudo)" : ` as ${this.o.loginUser}`}.`, {
        hint: asRoot ? "Check the file system (a FUSE or NFS mount root may not read)." : `Set become: sudo for ${this.o.host} (a NOPASSWD rule for ${this.o.loginUser}) so previews can read what the login cannot, or log in as root.`,
        details,
      });
    }
    if (/Too many levels of symbolic links/.test(stderr)) return new HostgateError("unavailable", `${path} on ${this.o.host} is a symlink; it is not followed.`, { details });
    return new HostgateError("unavailable", `Could not read ${path} on ${this.o.host} (${tool}): ${stderr.trim().split("\n")[0]?.slice(0, 200) ?? ""}`, { details: { ...details, stderr: stderr.slice(0, 500) } });
  }

  readText(path: string, opts: { maxBytes?: number; singleRead?: boolean; encoding?: "utf8" | "latin1" } = {}): Promise<string> {
    return this.loginThenRoot(() => this.o.login.readText(path, opts), async () => {
      const capped = opts.maxBytes !== undefined;
      if (capped && (!Number.isSafeInteger(opts.maxBytes) || opts.maxBytes! < 0)) throw new HostgateError("invalid_params", `maxBytes ${opts.maxBytes} is not a byte count.`);
      const argv = ["dd", `if=${path}`, "bs=65536", "status=none", capped ? "iflag=nonblock,nofollow,count_bytes" : "iflag=nonblock", ...(capped ? [`count=${opts.maxBytes}`] : [])];
      // The cap is per stream: dd's count stops stdout at maxBytes, and stderr must stay whole enough to be read.
      const r = await this.command(argv, path, true, capped ? Math.max(64 * 1024, opts.maxBytes!) : MAX_WHOLE_BYTES);
      if (r.truncated && !capped) throw new HostgateError("unavailable", `${path} on ${this.o.host} is larger than ${MAX_WHOLE_BYTES} bytes; it is not read whole.`, { details: { host: this.o.host, path } });
      return (capped ? r.stdout.subarray(0, opts.maxBytes) : r.stdout).toString(opts.encoding ?? "utf8");
    });
  }

  /** lstat(2) by `stat -c STAT_FORMAT -- PATH`: as the login, then as root when that is refused (see the class). */
  stat(path: string): Promise<FileStat> {
    const once = async (asRoot: boolean): Promise<FileStat> => {
      const r = await this.command(["stat", "-c", STAT_FORMAT, "--", path], path, asRoot, 4096);
      const st = parseStatLine(r.stdout.toString());
      if (st === null) throw new HostgateError("unavailable", `stat of ${path} on ${this.o.host} answered something other than GNU stat's -c format: ${JSON.stringify(r.stdout.toString().slice(0, 100))}`, { hint: "hostgate needs GNU coreutils' stat on the host.", details: { host: this.o.host, path } });
      return st;
    };
    return this.loginThenRoot(() => once(false), () => once(true));
  }

  readDir(path: string): Promise<string[]> {
    return this.loginThenRoot(() => this.o.login.readDir(path), async () => {
      const st = await this.stat(path);
      if (!st.is_directory && !st.is_symlink) throw new HostgateError("not_found", `${path} on ${this.o.host} is not a directory.`, { details: { host: this.o.host, path } });
      const r = await this.command(["find", "-H", path, "-mindepth", "1", "-maxdepth", "1", "-printf", "%f\\0"], path, true, MAX_WHOLE_BYTES);
      return r.stdout.toString("utf8").split("\0").filter((n) => n !== "");
    });
  }

  /**
   * realpath(3) by `realpath -e -z -- PATH` (as the login, then as root when refused): every component must
   * exist, as the local probe's realpath. SFTP's realpath (OpenSSH) accepts a missing last component, so a
   * preview over SFTP would take a deleted file's path for its real path.
   */
  realPath(path: string): Promise<string> {
    const once = async (asRoot: boolean): Promise<string> => (await this.command(["realpath", "-e", "-z", "--", path], path, asRoot, 64 * 1024)).stdout.toString("utf8").replace(/\0$/, "");
    return this.loginThenRoot(() => once(false), () => once(true));
  }

  readLink(path: string): Promise<string> {
    return this.loginThenRoot(() => this.o.login.readLink(path), async () => (await this.command(["readlink", "-z", "--", path], path, true, 64 * 1024)).stdout.toString("utf8").replace(/\0$/, ""));
  }

  readTailConfined(path: string, within: string, opts: { maxBytes: number; maxLines: number }): Promise<{ text: string; size: number; startOffset: number; owner: FileOwner }> {
    return this.o.login.readTailConfined(path, within, opts);
  }

  readRecords(path: string, opts: { maxBytes: number }): Promise<{ text: string; truncated: boolean }> {
    return this.o.login.readRecords(path, opts);
  }

  statFs(path: string): Promise<StatFs> {
    return this.o.login.statFs(path);
  }

  networkAddresses(): Promise<Record<string, InterfaceAddress[]>> {
    return this.o.login.networkAddresses();
  }

  run(argv: readonly string[], opts?: RunOptions): Promise<ExecResult> {
    return this.o.login.run(argv, opts);
  }

  which(name: string): Promise<string | null> {
    return this.o.login.which(name);
  }
}
