import { constants as fsConstants } from "node:fs";
import { open, rename, unlink, type FileHandle, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { ExecResult } from "../core/exec.ts";
import { HostgateError } from "../core/errors.ts";
import type { Hasher } from "../ports/hasher.ts";
import type { HostMutator, SignalName, WriteFileOptions } from "../ports/host-mutator.ts";
import type { RunOptions } from "../ports/host-probe.ts";
import { nodeCrypto } from "./crypto-node.ts";
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

/** Current state of `path` for the precondition: its content hash, or null when it does not exist. */
async function currentHash(path: string, hasher: Hasher): Promise<{ sha256: string; mode: number; uid: number; gid: number } | null> {
  let handle: FileHandle | undefined;
  try {
    // O_NOFOLLOW: a symlink at `path` fails with ELOOP rather than being read through.
    handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    const st = await handle.stat();
    if (!st.isFile()) throw new HostgateError("precondition_failed", `${path} is not a regular file.`);
    const text = await handle.readFile({ encoding: "utf8" });
    return { sha256: hasher.sha256Hex(text), mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw new HostgateError("precondition_failed", `${path} is a symlink; hostgate does not write through symlinks.`, { cause: err });
    throw osError(err, `Reading ${path}`);
  } finally {
    await handle?.close();
  }
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

  async writeFileAtomic(path: string, content: string, opts: WriteFileOptions): Promise<void> {
    const dir = dirname(path);
    const before = await currentHash(path, this.hasher);
    if (opts.expectedSha256 !== undefined) this.check(path, before?.sha256 ?? null, opts.expectedSha256);
    const temp = join(dir, `.${basename(path)}.hostgate-${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2, 10)}`);
    let handle: FileHandle | undefined;
    let renamed = false;
    try {
      handle = await open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW, 0o600);
      await handle.writeFile(content, { encoding: "utf8" });
      await handle.chmod(opts.mode ?? before?.mode ?? DEFAULT_NEW_MODE);
      if (before) {
        try {
          await handle.chown(before.uid, before.gid);
        } catch {
          // Not permitted (unprivileged daemon): the new file keeps the daemon's owner.
        }
      }
      await handle.sync();
      await handle.close();
      handle = undefined;
      // Re-check as late as possible: the window between this read and rename is the only race left.
      if (opts.expectedSha256 !== undefined) this.check(path, (await currentHash(path, this.hasher))?.sha256 ?? null, opts.expectedSha256);
      if (opts.expectedRealDir !== undefined && (await realpath(dir)) !== opts.expectedRealDir) {
        throw new HostgateError("precondition_failed", `${dir} no longer resolves to ${opts.expectedRealDir}; nothing was written.`, { hint: "A directory on the path changed after approval. Plan the change again." });
      }
      await rename(temp, path);
      renamed = true;
      const dirHandle = await open(dir, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY);
      try { await dirHandle.sync(); } finally { await dirHandle.close(); }
    } catch (err) {
      throw osError(err, `Writing ${path}`);
    } finally {
      await handle?.close();
      if (!renamed) await unlink(temp).catch(() => undefined);
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
