import { closeSync, constants as fsConstants, fchmodSync, fchownSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import type { ExecResult } from "../core/exec.ts";
import { HostgateError } from "../core/errors.ts";
import type { Hasher } from "../ports/hasher.ts";
import type { HostMutator, RemoveFileOptions, SignalName, WriteFileOptions } from "../ports/host-mutator.ts";
import { sysctlKeyPath } from "../core/host/sysctl-key.ts";
import type { RunOptions } from "../ports/host-probe.ts";
import { nodeCrypto } from "./crypto-node.ts";
import { HeldDirectory } from "./held-directory.ts";
import { LinuxHostProbe } from "./host-linux.ts";

const DEFAULT_NEW_MODE = 0o644;

/** Maps a Node errno error from a mutation to a HostgateError with a stable code. */
function osError(err: unknown, what: string): HostgateError {
  if (err instanceof HostgateError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR" || code === "ESRCH") return new HostgateError("not_found", `${what}: does not exist.`, { cause: err });
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") {
    return new HostgateError("permission_denied", `${what}: permission denied.`, {
      hint: "The hostgate daemon lacks the privilege for this change; run it as a user that has it.",
      cause: err,
    });
  }
  return new HostgateError("unavailable", `${what}: ${(err as Error).message}`, { cause: err });
}

/** Current state of `name` inside a held directory (openat, O_NOFOLLOW): content hash, mode, owner; null when absent. */
function currentFileAt(dir: HeldDirectory, name: string, path: string, hasher: Hasher): { sha256: string; mode: number; uid: number; gid: number } | null {
  let fd: number | undefined;
  try {
    fd = dir.openFile(name, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile()) throw new HostgateError("precondition_failed", `${path} is not a regular file.`);
    const text = readFileSync(fd, { encoding: "utf8" });
    return { sha256: hasher.sha256Hex(text), mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw new HostgateError("precondition_failed", `${path} is a symlink; hostgate does not write through symlinks.`, { cause: err });
    throw osError(err, `Reading ${path}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `openat` of `name` in `dir` with the given flags; a symlink there is `precondition_failed`. */
function openNoFollow(dir: HeldDirectory, name: string, path: string, flags: number): number {
  try {
    return dir.openFile(name, flags);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ELOOP") throw new HostgateError("precondition_failed", `${path} is now a symlink; hostgate does not follow links. Nothing was changed.`, { cause: err });
    throw err;
  }
}

/** Throws precondition_failed unless `st` is a regular file with one link and the approved dev + inode. */
function checkIdentity(st: Stats, path: string, opts: RemoveFileOptions): void {
  const why = !st.isFile() ? "it is no longer a regular file"
    : st.nlink !== 1 ? `it now has ${st.nlink} hard links`
    : st.dev !== opts.expectedDev || st.ino !== opts.expectedIno ? "it is another file than the one approved (its inode changed, e.g. a log rotation)"
    : null;
  if (why !== null) throw new HostgateError("precondition_failed", `${path}: ${why}. Nothing was changed.`, { hint: "Plan the change again so the preview shows the file as it is now." });
}

/**
 * The HostMutator of the machine this process runs on: atomic file replacement with node:fs, signals with
 * process.kill, and package tools through {@link LinuxHostProbe.run} (argv only, never a shell).
 */
export class LinuxHostMutator implements HostMutator {
  constructor(
    private readonly probe: LinuxHostProbe = new LinuxHostProbe(),
    private readonly hasher: Hasher = nodeCrypto,
  ) {}

  writeFileAtomic(path: string, content: string, opts: WriteFileOptions): Promise<void> {
    try {
      this.writeNow(path, content, opts);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** {@link writeFileAtomic}, synchronously (content ≤ 1 MiB; runs under the daemon's mutation lock). */
  private writeNow(path: string, content: string, opts: WriteFileOptions): void {
    const name = basename(path);
    let held: HeldDirectory | undefined;
    let temp: string | undefined;
    let renamed = false;
    try {
      // The directory is opened once and held: every step below names files relative to this descriptor
      // (openat/renameat), so swapping the directory's path for a symlink or another directory after this
      // moment cannot redirect the write. The descriptor must hold the directory the human approved.
      held = HeldDirectory.open(dirname(path));
      const at = held.realPath();
      if (opts.expectedRealDir !== undefined && at !== opts.expectedRealDir) {
        throw new HostgateError("precondition_failed", `${dirname(path)} no longer resolves to ${opts.expectedRealDir} (now ${at}); nothing was written.`, { hint: "A directory on the path changed after approval. Plan the change again." });
      }
      const dir = held;
      const before = currentFileAt(dir, name, path, this.hasher);
      if (opts.expectedSha256 !== undefined) this.check(path, before?.sha256 ?? null, opts.expectedSha256);
      temp = `.${name}.hostgate-${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2, 10)}`;
      const fd = dir.openFile(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o600);
      try {
        writeSync(fd, content, null, "utf8");
        fchmodSync(fd, opts.mode ?? before?.mode ?? DEFAULT_NEW_MODE);
        if (before) {
          try {
            fchownSync(fd, before.uid, before.gid);
          } catch {
            // Not permitted (unprivileged daemon): the new file keeps the daemon's owner.
          }
        }
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      // Re-check the content as late as possible; the directory itself can no longer change under us.
      if (opts.expectedSha256 !== undefined) this.check(path, currentFileAt(dir, name, path, this.hasher)?.sha256 ?? null, opts.expectedSha256);
      dir.rename(temp, name);
      renamed = true;
      dir.sync();
    } catch (err) {
      throw osError(err, `Writing ${path}`);
    } finally {
      if (!renamed && temp !== undefined) {
        try {
          held?.unlink(temp);
        } catch {
          // best effort: a stray temp file is named .<name>.hostgate-<pid>-…
        }
      }
      held?.close();
    }
  }

  /** Throws precondition_failed unless the observed hash (null = absent) is the expected one. */
  private check(path: string, actual: string | null, expected: string | null): void {
    if (actual === expected) return;
    const describe = (h: string | null): string => (h === null ? "absent" : `sha256 ${h}`);
    throw new HostgateError("precondition_failed", `${path} changed since the preview: expected ${describe(expected)}, found ${describe(actual)}.`, {
      hint: "Plan the change again so the preview shows the file as it is now.",
      details: { path, expected_sha256: expected, actual_sha256: actual },
    });
  }

  removeFile(path: string, opts: RemoveFileOptions): Promise<{ size: number }> {
    try {
      return Promise.resolve(this.removeNow(path, opts));
    } catch (err) {
      return Promise.reject(osError(err, `${opts.how === "delete" ? "Deleting" : "Truncating"} ${path}`));
    }
  }

  /** {@link removeFile}, synchronously (under the daemon's mutation lock). */
  private removeNow(path: string, opts: RemoveFileOptions): { size: number } {
    const name = basename(path);
    const held = HeldDirectory.open(dirname(path));
    try {
      const at = held.realPath();
      if (at !== opts.expectedRealDir) {
        throw new HostgateError("precondition_failed", `${dirname(path)} no longer resolves to ${opts.expectedRealDir} (now ${at}); nothing was changed.`, { hint: "A directory on the path changed after approval. Plan the change again." });
      }
      if (opts.how === "truncate") {
        const fd = openNoFollow(held, name, path, fsConstants.O_WRONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
        try {
          const st = fstatSync(fd);
          checkIdentity(st, path, opts);
          ftruncateSync(fd, 0);
          fsyncSync(fd);
          return { size: st.size };
        } finally {
          closeSync(fd);
        }
      }
      // Delete: move the name aside first, look at what moved, and put it back unless it is the approved file.
      const aside = `.${name}.hostgate-rm-${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2, 10)}`;
      held.rename(name, aside);
      let st: Stats;
      try {
        const fd = openNoFollow(held, aside, path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
        try {
          st = fstatSync(fd);
        } finally {
          closeSync(fd);
        }
        checkIdentity(st, path, opts);
      } catch (err) {
        held.rename(aside, name);
        throw err;
      }
      held.unlink(aside);
      held.sync();
      return { size: st.size };
    } finally {
      held.close();
    }
  }

  createRootFile(path: string, opts: { mode: number; bytes: number }): Promise<void> {
    try {
      this.createNow(path, opts);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(osError(err, `Creating ${path}`));
    }
  }

  /** {@link createRootFile}, synchronously (under the daemon's mutation lock). */
  private createNow(path: string, opts: { mode: number; bytes: number }): void {
    if (!Number.isSafeInteger(opts.bytes) || opts.bytes <= 0) throw new HostgateError("invalid_params", `A new file's size must be a whole number of bytes above 0 (got ${opts.bytes}).`);
    const name = basename(path);
    let held: HeldDirectory;
    try {
      held = HeldDirectory.openRootOnlyChain(dirname(path));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOTROOTONLY") throw new HostgateError("precondition_failed", `Refused to create ${path}: ${(err as Error).message}; only a directory chain that root alone can change is safe for a file root then uses by name. Nothing was created.`, { hint: "Put the file in a directory owned by root and not writable by others, e.g. /swapfile or /var/lib/swap/.", cause: err });
      // openat(O_DIRECTORY | O_NOFOLLOW) of a link answers ENOTDIR on Linux (ELOOP on some kernels).
      if (code === "ELOOP" || code === "ENOTDIR") throw new HostgateError("precondition_failed", `Refused to create ${path}: a component of its directory is a symbolic link or not a directory. Nothing was created.`, { hint: "Name the real path of an existing directory.", cause: err });
      throw err;
    }
    let fd: number | undefined;
    try {
      try {
        fd = held.openFile(name, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o600);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "EEXIST" || code === "ELOOP") throw new HostgateError("precondition_failed", `${path} exists now (a file or a link); hostgate creates only a new file. Nothing was changed.`, { hint: "Plan the change again.", cause: err });
        throw err;
      }
      fchmodSync(fd, opts.mode);
      try {
        HeldDirectory.fallocate(fd, opts.bytes);
      } catch (err) {
        closeSync(fd);
        fd = undefined;
        held.unlink(name);
        throw err;
      }
      fsyncSync(fd);
      held.sync();
    } finally {
      if (fd !== undefined) closeSync(fd);
      held.close();
    }
  }

  writeSysctl(key: string, value: string): Promise<void> {
    let path: string;
    try {
      path = sysctlKeyPath(key, "write");
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    if (/[\n\0]/.test(value)) return Promise.reject(new HostgateError("invalid_params", "A sysctl value is one line."));
    let fd: number | undefined;
    try {
      fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_NOFOLLOW);
      writeSync(fd, `${value}\n`);
      return Promise.resolve();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EINVAL") return Promise.reject(new HostgateError("invalid_params", `The kernel refused ${JSON.stringify(value)} for ${key}.`, { hint: "Give a value of the form the key shows now (GetSysctl / sysctl -n).", cause: err }));
      return Promise.reject(osError(err, `Setting ${key}`));
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  signal(pid: number, signal: SignalName): Promise<void> {
    try {
      process.kill(pid, signal);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(osError(err, `Signalling pid ${pid}`));
    }
  }

  run(argv: readonly string[], opts: RunOptions): Promise<ExecResult> {
    return this.probe.run(argv, opts);
  }
}
