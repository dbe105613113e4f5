import type { ExecResult } from "../core/exec.ts";
import type { RunOptions } from "./host-probe.ts";

/** POSIX signals a mutating action may send, by their full names as `kill -l` prints them with `SIG`. */
export type SignalName = "SIGTERM" | "SIGKILL" | "SIGHUP" | "SIGINT" | "SIGUSR1" | "SIGUSR2" | "SIGSTOP" | "SIGCONT";

/** Options for {@link HostMutator.writeFileAtomic}. */
export interface WriteFileOptions {
  /**
   * The directory the approved preview resolved (realpath). When given, the directory is opened once and must
   * be that directory then (otherwise `precondition_failed`); the temp file, the precondition reads and the
   * rename all go through that open directory (openat/renameat), so a later swap of its path changes nothing.
   */
  expectedRealDir?: string;
  /**
   * Permission bits (0o0000–0o7777) of the new file. When omitted, an existing file keeps its mode and a
   * new file gets 0o644.
   */
  mode?: number;
  /**
   * Precondition on the file's current content, checked right before the rename:
   * - a hex SHA-256 string: the file must exist as a regular file (not a symlink) and the SHA-256 of its
   *   content, decoded as UTF-8 and re-encoded (see {@link Hasher}), must equal it;
   * - `null`: the file must not exist;
   * - omitted: no precondition.
   * A mismatch throws HostgateError `precondition_failed` and leaves the file untouched.
   */
  expectedSha256?: string | null;
}

/** Options for {@link HostMutator.removeFile}: which file the approved preview saw, and what to do with it. */
export interface RemoveFileOptions {
  /** `delete`: unlink the file; `truncate`: cut it to 0 bytes in place (a process writing it keeps its descriptor). */
  how: "delete" | "truncate";
  /** The directory the approved preview resolved (realpath); the held directory must be it (`precondition_failed`). */
  expectedRealDir: string;
  /** The file's identity in the approved preview (lstat dev + inode); another file under that name is `precondition_failed`. */
  expectedDev: number;
  expectedIno: number;
}

/**
 * The only way catalogue actions change the host. Implemented by `adapters/host-mutator-linux.ts` (this machine)
 * and `adapters/host-mutator-ssh.ts` (an inventory host over SSH, the same semantics and errors).
 * Used only by `MutatingAction.apply`, never by `preview`. Every method throws HostgateError:
 * `not_found` (path's directory or pid missing), `permission_denied`, `precondition_failed`,
 * `unavailable` (any other OS failure).
 */
export interface HostMutator {
  /**
   * Replaces `path` atomically: writes a temp file in the same directory, fsyncs it, gives it the mode
   * and (on overwrite, when permitted) the owner of the file it replaces, re-checks `expectedSha256`,
   * renames it over `path` and fsyncs the directory. Readers see the old or the new content, never a mix.
   * `content` is written as UTF-8. A symlink or non-regular file at `path` is always
   * `precondition_failed`, with or without `expectedSha256`: hostgate never writes through symlinks.
   */
  writeFileAtomic(path: string, content: string, opts: WriteFileOptions): Promise<void>;
  /**
   * Deletes or truncates one regular file, never through a symlink: its directory is opened and held (it must be
   * `expectedRealDir`), the name is opened with O_NOFOLLOW relative to it, and the file must still be a regular
   * file with one link and the approved dev + inode. Delete first renames the name aside inside the held
   * directory, checks what it moved, and puts it back when it is not the approved file, so no swap between the
   * check and the unlink removes another file. Returns the bytes the file held (st_size).
   */
  removeFile(path: string, opts: RemoveFileOptions): Promise<{ size: number }>;
  /**
   * Creates a new regular file that root will then use by name (issue 24, AddSwapFile: mkswap and swapon take a
   * path). Every directory from `/` to the file's directory is opened without following links (held descriptors)
   * and must be owned by root and not writable by group or other (core/host/root-only-dir.ts; sticky directories
   * such as /tmp are refused): then only root can change any name on the path, so a later use of the path by name
   * reaches this file, by construction. The file is created O_CREAT | O_EXCL | O_NOFOLLOW (nothing may be there,
   * not even a link), given `mode` by fchmod and `bytes` by fallocate(2), all on its descriptor. `bytes` is a whole
   * number of bytes > 0. Errors: `precondition_failed` (a directory breaks the rule, a link on the way, the name
   * exists), `not_found` (a directory is missing), `unavailable` (the file system cannot allocate: the half-made
   * file is removed).
   */
  createRootFile(path: string, opts: { mode: number; bytes: number }): Promise<void>;
  /**
   * Sets one kernel parameter live (issue 24, SetSysctl): writes `value` and a newline to /proc/sys/<key with dots
   * as slashes>, opened without following links and without creating anything. `key` must match
   * the write form of core/host/sysctl-key.ts `sysctlKeyPath` (`invalid_params` otherwise). `not_found` for a key the kernel does not have, `permission_denied` for a read-only one,
   * `invalid_params` when the kernel rejects the value (EINVAL).
   */
  writeSysctl(key: string, value: string): Promise<void>;
  /** Sends `signal` to process `pid` (kill(2)). `not_found` when the process does not exist. */
  signal(pid: number, signal: SignalName): Promise<void>;
  /**
   * Runs a program directly (argv[0] is executed, never a shell) for package tools. Same semantics and
   * result as HostProbe.run; callers pass an explicit `timeoutMs` sized for the tool.
   */
  run(argv: readonly string[], opts: RunOptions): Promise<ExecResult>;
}
