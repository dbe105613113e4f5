import { spawn } from "node:child_process";
import { closeSync, constants as fsConstants, openSync, readdirSync, readSync } from "node:fs";
import { access, open, readdir, readFile, readlink, realpath, lstat, statfs } from "node:fs/promises";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { delimiter, join } from "node:path";
import type { ExecResult } from "../core/exec.ts";
import { isWithinRoot } from "../core/paths.ts";
import { HostgateError } from "../core/errors.ts";
import { NftSession } from "./nft-session.ts";
import type { FileOwner, FileStat, HostProbe, InterfaceAddress, RunOptions, StatFs, TcpConnectResult } from "../ports/host-probe.ts";

const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;

/** Maps a Node fs error to a HostgateError with a stable code and the path involved. */
function fsError(err: unknown, path: string): HostgateError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") return new HostgateError("not_found", `${path} does not exist.`, { cause: err });
  if (code === "EACCES" || code === "EPERM") {
    return new HostgateError("permission_denied", `Permission denied reading ${path}.`, {
      hint: "The hostgate daemon runs without the privilege this needs; run it as a user that can read the file.",
      cause: err,
    });
  }
  return new HostgateError("unavailable", `Could not read ${path}: ${(err as Error).message}`, { cause: err });
}

/** Scratch buffer for /proc reads (never zeroed: only the bytes read are decoded). */
let procBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * Reads a /proc or /sys file synchronously, up to `maxBytes`. procfs and sysfs files are generated in memory, so a synchronous
 * read costs a few microseconds, against a thread-pool round trip (open, fstat, read, close) for the async
 * API: the process table (three files per process) went from ≈ 25 ms to ≈ 2 ms (bench/list-processes.ts).
 */
function readProcSync(path: string, maxBytes: number, singleRead: boolean): string {
  const fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  try {
    let length = 0;
    for (;;) {
      if (length === procBuffer.length && length < maxBytes) {
        const bigger = Buffer.allocUnsafe(Math.min(procBuffer.length * 2, Math.max(maxBytes, procBuffer.length)));
        procBuffer.copy(bigger, 0, 0, length);
        procBuffer = bigger;
      }
      const want = Math.min(procBuffer.length, maxBytes) - length;
      if (want <= 0) break;
      const n = readSync(fd, procBuffer, length, want, null);
      if (n === 0) break;
      length += n;
      if (singleRead && n < want) break;
    }
    return procBuffer.toString("utf8", 0, length);
  } finally {
    closeSync(fd);
  }
}

/** Largest /proc file read whole when no cap is given (mountinfo of a busy container host stays far below). */
const PROC_MAX_BYTES = 16 * 1024 * 1024;

/** Bytes per read(2) of a record device: /dev/kmsg refuses (EINVAL) a buffer smaller than its longest record (8 KiB). */
const RECORD_BUFFER = 16 * 1024;
/**
 * Most bytes readRecords reads in all, as a multiple of its cap: the device's buffer ends the read long before
 * (EAGAIN); this only bounds a kernel that logs faster than it is read.
 */
const RECORD_READ_FACTOR = 4;
const EMPTY = Buffer.alloc(0);

/**
 * The HostProbe of the machine this process runs on: /proc, /sys, files and argv-only process spawning. Holds one
 * kept process (nft's, started on first use by {@link nftList}): {@link close} ends it.
 */
export class LinuxHostProbe implements HostProbe {
  private nft: NftSession | null = null;

  /** The environment of every program this probe starts: PATH and a UTF-8 C locale, nothing of the daemon's own. */
  private static env(): Record<string, string> {
    return { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C.UTF-8" };
  }

  async nftList(words: readonly string[], opts: { timeoutMs: number; maxOutputBytes: number }): Promise<ExecResult | null> {
    if (!this.nft) {
      const nft = await this.which("nft");
      if (!nft) return null;
      this.nft = new NftSession({ argv: [nft], env: LinuxHostProbe.env() });
    }
    const r = await this.nft.list(words, opts);
    // nft could not start (removed since the session began): say so as for a first call.
    if (r.exit_code === 127 && !(await this.which("nft"))) {
      this.close();
      return null;
    }
    return r;
  }

  /** Ends the kept nft process, if any (the daemon's close). The probe stays usable: a later call starts a new one. */
  close(): void {
    this.nft?.close();
    this.nft = null;
  }

  async readText(path: string, opts: { maxBytes?: number; singleRead?: boolean; encoding?: "utf8" | "latin1" } = {}): Promise<string> {
    const encoding = opts.encoding ?? "utf8";
    try {
      if (encoding === "utf8" && (path.startsWith("/proc/") || path.startsWith("/sys/"))) return readProcSync(path, opts.maxBytes ?? PROC_MAX_BYTES, opts.singleRead === true);
      if (opts.maxBytes === undefined) return await readFile(path, encoding);
      return await this.readRange(path, 0, opts.maxBytes, encoding);
    } catch (err) {
      throw err instanceof HostgateError ? err : fsError(err, path);
    }
  }

  private async readRange(path: string, start: number, length: number, encoding: "utf8" | "latin1" = "utf8"): Promise<string> {
    let handle;
    try {
      handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
      const buf = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buf, 0, length, start);
      return buf.subarray(0, bytesRead).toString(encoding);
    } catch (err) {
      throw fsError(err, path);
    } finally {
      await handle?.close();
    }
  }

  async readTailConfined(path: string, within: string, opts: { maxBytes: number; maxLines: number }): Promise<{ text: string; size: number; startOffset: number; owner: FileOwner }> {
    let handle;
    try {
      handle = await open(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ELOOP") throw new HostgateError("forbidden_path", `${path} is a symlink.`, { hint: `Pass the real path of a file under ${within}.` });
      throw fsError(err, path);
    }
    try {
      const opened = await readlink(`/proc/self/fd/${handle.fd}`);
      if (!isWithinRoot(opened, within)) {
        throw new HostgateError("forbidden_path", `${path} opened as ${opened}, outside ${within}.`, { hint: `Pass a file under ${within}.` });
      }
      const st = await handle.stat();
      if (!st.isFile()) throw new HostgateError("forbidden_path", `${path} is not a regular file.`);
      if (st.nlink > 1) throw new HostgateError("forbidden_path", `${path} has ${st.nlink} hard links; a hard link can expose a file from outside ${within}.`);
      const CHUNK = 64 * 1024;
      let end = st.size;
      let text = "";
      let lines = 0;
      while (end > 0 && lines <= opts.maxLines && st.size - end < opts.maxBytes) {
        const start = Math.max(0, end - CHUNK, st.size - opts.maxBytes);
        const buf = Buffer.alloc(end - start);
        const { bytesRead } = await handle.read(buf, 0, end - start, start);
        const chunk = buf.subarray(0, bytesRead).toString("utf8");
        lines += chunk.split("\n").length - 1;
        text = chunk + text;
        end = start;
      }
      return { text, size: st.size, startOffset: end, owner: { uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 } };
    } catch (err) {
      throw err instanceof HostgateError ? err : fsError(err, path);
    } finally {
      await handle.close();
    }
  }

  readRecords(path: string, opts: { maxBytes: number }): Promise<{ text: string; truncated: boolean }> {
    let fd: number;
    try {
      fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    } catch (err) {
      return Promise.reject(fsError(err, path));
    }
    // Synchronous on purpose: each read(2) returns at once (a record, or EAGAIN), so no thread-pool round trips.
    // A ring of the newest records within maxBytes: past the cap the oldest are dropped (an operator wants the
    // newest), and the read goes on to the end of the buffer, bounded by RECORD_READ_FACTOR × maxBytes in all.
    const record = Buffer.allocUnsafe(RECORD_BUFFER);
    const parts: Buffer[] = [];
    let first = 0;
    let length = 0;
    let read = 0;
    let dropped = false;
    try {
      while (read < opts.maxBytes * RECORD_READ_FACTOR) {
        let n: number;
        try {
          n = readSync(fd, record, 0, RECORD_BUFFER, null);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === "EAGAIN") break; // no more records now: never wait for the next one
          if (code === "EPIPE") continue; // a record was overwritten while we read: the next read resumes after it
          throw fsError(err, path);
        }
        if (n === 0) break;
        read += n;
        parts.push(Buffer.from(record.subarray(0, n)));
        length += n;
        while (length > opts.maxBytes && first < parts.length) {
          length -= parts[first]!.length;
          parts[first++] = EMPTY;
          dropped = true;
        }
      }
      return Promise.resolve({ text: Buffer.concat(parts.slice(first)).toString("utf8"), truncated: dropped || read >= opts.maxBytes * RECORD_READ_FACTOR });
    } catch (err) {
      return Promise.reject(err instanceof HostgateError ? err : fsError(err, path));
    } finally {
      closeSync(fd);
    }
  }

  async readDir(path: string): Promise<string[]> {
    try {
      // The pid list and sysfs directories are generated in memory, like /proc files (see readProcSync): listed
      // synchronously (a sysfs directory holds tens of entries; ListBlockDevices lists one per disk). Other /proc
      // directories stay asynchronous: a process's fd directory can hold a million entries.
      if (path === "/proc" || path.startsWith("/sys/")) return readdirSync(path);
      return await readdir(path);
    } catch (err) {
      throw fsError(err, path);
    }
  }

  async readLink(path: string): Promise<string> {
    try {
      return await readlink(path);
    } catch (err) {
      throw fsError(err, path);
    }
  }

  async realPath(path: string): Promise<string> {
    try {
      return await realpath(path);
    } catch (err) {
      throw fsError(err, path);
    }
  }

  async stat(path: string): Promise<FileStat & { mode: number }> {
    try {
      const s = await lstat(path);
      return {
        size: s.size, mtime_ms: s.mtimeMs, is_file: s.isFile(), is_directory: s.isDirectory(), is_symlink: s.isSymbolicLink(), mode: s.mode & 0o7777,
        dev: s.dev, ino: s.ino, nlink: s.nlink, uid: s.uid, blocks_bytes: s.blocks * 512,
      };
    } catch (err) {
      throw fsError(err, path);
    }
  }

  async statFs(path: string): Promise<StatFs> {
    try {
      const s = await statfs(path);
      return { block_size: s.bsize, blocks: s.blocks, blocks_free: s.bfree, blocks_available: s.bavail, files: s.files, files_free: s.ffree };
    } catch (err) {
      throw fsError(err, path);
    }
  }

  networkAddresses(): Promise<Record<string, InterfaceAddress[]>> {
    const out: Record<string, InterfaceAddress[]> = {};
    for (const [name, addrs] of Object.entries(networkInterfaces())) {
      out[name] = (addrs ?? []).map((a) => ({ family: a.family, address: a.address, netmask: a.netmask, cidr: a.cidr }));
    }
    return Promise.resolve(out);
  }

  async which(name: string): Promise<string | null> {
    for (const dir of (process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin").split(delimiter)) {
      const candidate = join(dir, name);
      try {
        await access(candidate, fsConstants.X_OK);
        return candidate;
      } catch {
        // not in this directory
      }
    }
    return null;
  }

  run(argv: readonly string[], opts: RunOptions = {}): Promise<ExecResult> {
    const [file, ...args] = argv;
    if (file === undefined) return Promise.reject(new HostgateError("invalid_params", "run() needs a non-empty argv."));
    const maxBytes = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const started = performance.now();
    return new Promise((resolve) => {
      const child = spawn(file, args, {
        shell: false,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...LinuxHostProbe.env(), ...opts.env },
        timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        killSignal: "SIGKILL",
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let outLen = 0;
      let errLen = 0;
      let truncated = false;
      let timedOut = false;
      const collect = (chunks: Buffer[], len: number, chunk: Buffer): number => {
        const room = maxBytes - len;
        if (room <= 0) { truncated = true; return len; }
        if (chunk.length > room) truncated = true;
        chunks.push(chunk.subarray(0, room));
        return len + Math.min(room, chunk.length);
      };
      child.stdout.on("data", (c: Buffer) => { outLen = collect(out, outLen, c); });
      child.stderr.on("data", (c: Buffer) => { errLen = collect(err, errLen, c); });
      const timer = setTimeout(() => { timedOut = true; }, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const finish = (exitCode: number | null, signal: string | null, spawnError?: Error): void => {
        clearTimeout(timer);
        resolve({
          command: argv.join(" "),
          argv: [...argv],
          exit_code: exitCode,
          signal,
          timed_out: timedOut && signal === "SIGKILL",
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          stdout: Buffer.concat(out).toString("utf8"),
          stderr: spawnError ? spawnError.message : Buffer.concat(err).toString("utf8"),
          truncated,
        });
      };
      child.on("error", (e) => { finish(127, null, e); });
      child.on("close", (code, signal) => { finish(code, signal); });
    });
  }

  tcpConnect(host: string, port: number, timeoutMs: number): Promise<TcpConnectResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round((performance.now() - started) * 1000) / 1000;
    return new Promise((resolve) => {
      const socket = connect({ host, port });
      const done = (r: Omit<TcpConnectResult, "duration_ms">): void => {
        clearTimeout(timer);
        socket.destroy();
        resolve({ ...r, duration_ms: elapsed() });
      };
      const timer = setTimeout(() => { done({ connected: false, address: null, error: "timeout" }); }, timeoutMs);
      socket.once("connect", () => { done({ connected: true, address: socket.remoteAddress ?? null, error: null }); });
      socket.once("error", (e: NodeJS.ErrnoException) => { done({ connected: false, address: null, error: e.code ?? e.message }); });
    });
  }
}
