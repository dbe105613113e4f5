import type { SFTPWrapper, Stats } from "ssh2";
import { notShownNote, type UnitFileReader } from "./systemd-dbus.ts";

/** Bytes asked per SFTP read (ssh2 splits a larger read into the server's limit itself). */
const CHUNK = 64 * 1024;

type Cb<T> = (err: Error | undefined | null, v: T) => void;

/** One SFTP request as a promise (ssh2 may also throw synchronously, e.g. on a closed channel). */
function req<T>(f: (cb: Cb<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    try {
      f((e, v) => { if (e) reject(e); else resolve(v); });
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}

/**
 * Reads a remote host's unit files (FragmentPath, DropInPaths) through the connection's SFTP channel, as the SSH
 * login user: the same answers as the local reader (systemd-dbus.ts localUnitFileReader) and the exec reader it
 * replaces (one `sh` per file, ≈ 50–200 ms each on a loaded host; these are three pipelined SFTP round trips,
 * issue 20 "read_unit ≤ 10 ms"). Order: `stat` (links followed, as systemd does) refuses anything but a regular
 * file before it is opened (SFTP has no O_NONBLOCK: a FIFO would hold the host's one SFTP channel), then open,
 * then fstat and the first read together; the mode judged is the open descriptor's (not readable by everyone →
 * {@link notShownNote}, the content is dropped unread past the first chunk and never returned). Never rejects:
 * a file that cannot be read becomes `(unreadable: <reason>)`. `sftp` is the pooled session's `sftp()`.
 */
export function sftpUnitFileReader(sftp: () => Promise<SFTPWrapper>): UnitFileReader {
  return async (path, maxBytes) => {
    let s: SFTPWrapper;
    try {
      s = await sftp();
      const st = await req<Stats>((cb) => { s.stat(path, cb); });
      if (!st.isFile()) return "(unreadable: not a regular file)\n";
      if ((st.mode & 0o004) === 0) return notShownNote(st.mode);
    } catch (e) {
      return unreadable(e);
    }
    let handle: Buffer;
    try {
      handle = await req<Buffer>((cb) => { s.open(path, "r", cb); });
    } catch (e) {
      return unreadable(e);
    }
    const readAt = (pos: number, want: number): Promise<Buffer> =>
      req<Buffer>((cb) => { s.read(handle, Buffer.allocUnsafe(want), 0, want, pos, (e, got, data) => { cb(e, e ? Buffer.alloc(0) : data.subarray(0, got)); }); });
    try {
      const limit = maxBytes + 1;
      const [fst, first] = await Promise.all([req<Stats>((cb) => { s.fstat(handle, cb); }), readAt(0, Math.min(CHUNK, limit))]);
      if (!fst.isFile()) return "(unreadable: not a regular file)\n";
      if ((fst.mode & 0o004) === 0) return notShownNote(fst.mode);
      // A short read of a regular file is its end (sftp-server answers one read(2)): most unit files take one.
      const parts = [first];
      let length = first.length;
      let asked = Math.min(CHUNK, limit);
      while (length < limit && parts[parts.length - 1]!.length === asked) {
        asked = Math.min(CHUNK, limit - length);
        const next = await readAt(length, asked);
        parts.push(next);
        length += next.length;
      }
      const buf = Buffer.concat(parts);
      const cut = buf.length > maxBytes;
      return buf.subarray(0, maxBytes).toString("utf8") + (cut ? `\n(truncated at ${maxBytes} bytes)\n` : "");
    } catch (e) {
      return unreadable(e);
    } finally {
      // Not awaited: the answer does not depend on it, and the next request on the channel queues behind it.
      try {
        s.close(handle, () => undefined);
      } catch {
        // the channel is gone: so is the handle
      }
    }
  };
}

/** `(unreadable: …)` with the SFTP status as the local reader names errno (ENOENT, EACCES), else `error`. */
function unreadable(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  const name = code === 2 ? "ENOENT" : code === 3 ? "EACCES" : "error";
  return `(unreadable: ${name})\n`;
}
