import type { ExecResult } from "../core/exec.ts";

/** statfs(2) figures for one mount point, in bytes and inode counts. */
export interface StatFs {
  block_size: number;
  blocks: number;
  blocks_free: number;
  blocks_available: number;
  files: number;
  files_free: number;
}

/** Owner and permission bits of an opened file (fstat of the descriptor that was read). */
export interface FileOwner {
  uid: number;
  gid: number;
  /** Permission bits (0o7777 mask). */
  mode: number;
}

/** What {@link HostProbe.stat} answers; see there. */
export interface FileStat {
  size: number;
  mtime_ms: number;
  is_file: boolean;
  is_directory: boolean;
  is_symlink: boolean;
  mode?: number;
  dev?: number;
  ino?: number;
  nlink?: number;
  uid?: number;
  blocks_bytes?: number;
}

/** Options for {@link HostProbe.run}. `timeoutMs` kills the child (SIGKILL) when exceeded. */
export interface RunOptions {
  timeoutMs?: number;
  /** Cap per stream in bytes; output beyond it is dropped and `truncated` set. Default 1 MiB. */
  maxOutputBytes?: number;
  env?: Record<string, string>;
}

/** One address of a network interface, as the kernel reports it. */
export interface InterfaceAddress {
  family: "IPv4" | "IPv6";
  address: string;
  netmask: string;
  cidr: string | null;
}

/**
 * What {@link HostProbe.tcpConnect} answers: whether a TCP handshake with `host`:`port` completed from the probed
 * host within the timeout, the address it reached, how long it took (milliseconds), and the OS error otherwise
 * (`ECONNREFUSED`, `EHOSTUNREACH`, `ENOTFOUND` for a name that does not resolve, `timeout`).
 */
export interface TcpConnectResult {
  connected: boolean;
  address: string | null;
  duration_ms: number;
  error: string | null;
}

/**
 * Read-only access to a host: the only way actions see /proc, /sys, files and processes.
 * Implemented by `adapters/host-linux.ts` (the daemon's own host) and `adapters/host-ssh.ts` (over SSH). Every method throws `HostgateError` with code `not_found`,
 * `permission_denied` or `unavailable` for the corresponding OS condition; never anything untyped.
 * `run` never goes through a shell: argv[0] is executed directly.
 */
export interface HostProbe {
  /**
   * Reads a text file (UTF-8), up to `maxBytes` when given. `singleRead`: the file is one the kernel produces
   * whole on the first read(2) (/proc/[pid]/stat, status, cmdline): a short read is taken as its end, without
   * the read(2) that would return 0. Never set it for files listed a record at a time (mountinfo, net/tcp).
   * `encoding: "latin1"` returns one character per byte (code 0–255) for binary files such as utmp/wtmp records.
   */
  readText(path: string, opts?: { maxBytes?: number; singleRead?: boolean; encoding?: "utf8" | "latin1" }): Promise<string>;
  /**
   * Reads the end of a file confined to `within`: the file is opened first, and the path the kernel reports for
   * the open descriptor must lie under `within` (so a directory swapped for a symlink between a check and the
   * open cannot redirect the read); it must be a regular file with a single link (no hard link to a file
   * elsewhere). Reads backwards until `maxLines` + 1 line breaks or `maxBytes`. Throws `forbidden_path` when the
   * confinement fails, `not_found` / `permission_denied` as usual.
   */
  readTailConfined(path: string, within: string, opts: { maxBytes: number; maxLines: number }): Promise<{ text: string; size: number; startOffset: number; owner: FileOwner }>;
  /**
   * Reads a record device that answers one record per read(2) (the kernel log, /dev/kmsg) without ever blocking:
   * opened O_RDONLY | O_NONBLOCK, read until EAGAIN (no more records now) or until `maxBytes` bytes have been
   * read; a record overwritten while reading (EPIPE) is skipped. Over SSH it is `dd iflag=nonblock` on the host
   * (SFTP reads would block). Returns the records' bytes as read (UTF-8; each /dev/kmsg record ends with a
   * newline), at most `maxBytes` of them: the newest whole records that fit, with `truncated` when older ones
   * were dropped (the read goes on to the end of the buffer; the oldest records are the ones left out).
   * Errors: `not_found`, `permission_denied` (kernel.dmesg_restrict=1 without CAP_SYSLOG), `unavailable`.
   */
  readRecords(path: string, opts: { maxBytes: number }): Promise<{ text: string; truncated: boolean }>;
  readDir(path: string): Promise<string[]>;
  readLink(path: string): Promise<string>;
  realPath(path: string): Promise<string>;
  /**
   * lstat(2): does not follow a final symlink. `mode` is the permission bits (0o7777 mask); `dev`/`ino` identify
   * the file, `nlink` counts its hard links, `blocks_bytes` is the space it takes on disk (st_blocks × 512),
   * `uid` its owner. The optional fields are absent where the adapter cannot tell (hosts reached without lstat).
   */
  stat(path: string): Promise<FileStat>;
  statFs(path: string): Promise<StatFs>;
  /**
   * Addresses per interface, as `os.networkInterfaces()` reports them (interfaces up and running only). A
   * Promise: over SSH it is one remote command (`ip -j address show`).
   */
  networkAddresses(): Promise<Record<string, InterfaceAddress[]>>;
  run(argv: readonly string[], opts?: RunOptions): Promise<ExecResult>;
  /**
   * `nft -j <words>` for one read-only nftables `list` command (`["list", "ruleset"]`; plain words only), answered
   * as {@link run} answers that argv (exit 0 and the JSON document on stdout, or nft's exit and stderr). Locally a
   * kept `nft -j -i` co-process answers (adapters/nft-session.ts: spawned on first use, restarted after a failure
   * or its death, ended by the probe's `close`; never a cached answer). Resolves null when nft is not installed.
   * Optional: absent where each call spawns nft (SSH hosts: one exec per call).
   */
  nftList?(words: readonly string[], opts: { timeoutMs: number; maxOutputBytes: number }): Promise<ExecResult | null>;
  /** Whether an executable of that name is on PATH (no spawn). */
  which(name: string): Promise<string | null>;
  /**
   * Opens a TCP connection to `host`:`port` from this host and closes it at once (nothing is sent or read);
   * `timeoutMs` bounds the DNS lookup and the handshake together. Optional: absent where the probe cannot connect
   * from the host itself (SSH hosts, for now), and the action says so.
   */
  tcpConnect?(host: string, port: number, timeoutMs: number): Promise<TcpConnectResult>;
  /**
   * The whole process table read at once (issue 20: over SSH one fixed command, one round trip, instead of a
   * read per process file). Optional: the local probe reads files one by one (cheaper there: it reads only what
   * the answer needs). Resolves null when this host cannot run the reader (no POSIX `sh` or `awk`): the caller
   * then reads the files one by one. Throws `unavailable` when the reader started but failed or was cut.
   */
  readProcessTable?(): Promise<ProcessTableText | null>;
}

/**
 * The raw texts behind a process listing, as the files hold them (parsed by the same parsers as local reads).
 * `passwd` is /etc/passwd (null when unreadable); `stat` and `uptime` are /proc/stat and /proc/uptime; each
 * process has its /proc/[pid]/stat, the lines of its status the listing uses (Name, Uid, VmSize, VmRSS; null when
 * the process exited meanwhile) and its cmdline (at most 16 KiB, as a local read; null when it exited).
 */
export interface ProcessTableText {
  passwd: string | null;
  stat: string;
  uptime: string;
  processes: { pid: number; stat: string; status: string | null; cmdline: string | null }[];
}

/** Wall clock, injectable for tests (receipt expiry, audit timestamps). Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}
