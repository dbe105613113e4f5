import { randomBytes } from "node:crypto";
import type { SFTPWrapper, Stats } from "ssh2";
import { HostgateError } from "../core/errors.ts";
import type { FileUploader } from "../ports/file-upload.ts";
import type { SshPool, SshRoute } from "./exec-ssh/pool.ts";

/**
 * The FileUploader port over the pooled SFTP session of the route (adapters/exec-ssh/pool.ts `sftp`): mkdir
 * (0700) of the missing directories, a write to `<path>.tmp-<random>` opened exclusively (`wx`), a chmod to the
 * requested mode, then OpenSSH's posix-rename over `path` (atomic replace); a server without that extension
 * gets unlink + rename. A failed write removes its temporary file.
 */
export class SftpUploader implements FileUploader {
  constructor(private readonly pool: SshPool) {}

  async put(route: SshRoute, dirs: readonly string[], path: string, bytes: Uint8Array, mode: number): Promise<void> {
    const sftp = await this.pool.sftp(route);
    const step = async <T>(what: string, f: (cb: (e: Error | null | undefined, v?: T) => void) => void): Promise<T> => {
      try {
        return await new Promise<T>((resolve, reject) => { f((e, v) => { if (e) reject(e); else resolve(v as T); }); });
      } catch (e) {
        throw e instanceof HostgateError ? e : new HostgateError("backend_error", `sftp ${what}: ${(e as Error).message}`);
      }
    };
    for (const d of dirs) {
      const st = await new Promise<Stats | null>((resolve) => { sftp.lstat(d, (e, s) => { resolve(e ? null : s); }); });
      if (st === null) await step(`mkdir ${d}`, (cb) => { sftp.mkdir(d, { mode: 0o700 }, (e) => { cb(e); }); });
    }
    const tmp = `${path}.tmp-${randomBytes(6).toString("hex")}`;
    try {
      await step(`write ${tmp}`, (cb) => { sftp.writeFile(tmp, Buffer.from(bytes), { mode, flag: "wx" }, (e) => { cb(e); }); });
      await step(`chmod ${tmp}`, (cb) => { sftp.chmod(tmp, mode, (e) => { cb(e); }); });
      await rename(sftp, tmp, path, step);
    } catch (e) {
      sftp.unlink(tmp, () => undefined);
      throw e;
    }
  }
}

type Step = <T>(what: string, f: (cb: (e: Error | null | undefined, v?: T) => void) => void) => Promise<T>;

async function rename(sftp: SFTPWrapper, from: string, to: string, step: Step): Promise<void> {
  try {
    await step(`rename ${from}`, (cb) => { sftp.ext_openssh_rename(from, to, (e) => { cb(e); }); });
  } catch {
    await new Promise<void>((resolve) => { sftp.unlink(to, () => { resolve(); }); });
    await step(`rename ${from}`, (cb) => { sftp.rename(from, to, (e) => { cb(e); }); });
  }
}
