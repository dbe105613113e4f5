import { closeSync, constants as fsConstants, fchmodSync, fchownSync, fstatSync, fsyncSync, openSync, readdirSync, readlinkSync, type Dirent, type Stats } from "node:fs";
import { createRequire } from "node:module";
import type * as Koffi from "koffi";
import { chainOf, rootOnlyDirRefusal } from "../core/host/root-only-dir.ts";

/**
 * A directory held open by its descriptor, with the file operations Node lacks: `openat`, `renameat` and
 * `unlinkat` from the C library through koffi. The directory's path is resolved once, when it is opened;
 * every later step names files relative to the descriptor, so renaming the directory away, or swapping its
 * path for a symlink, after that moment cannot redirect a write (issue 12: WriteFile's directory swap).
 * Linux only (glibc or musl `libc.so.6`/`libc.so`). Errors are thrown as Node-style errors with `code`
 * (`ENOENT`, `ELOOP`…), like node:fs, so callers map them the same way.
 */

/** O_CLOEXEC on Linux (x86-64, arm64): descriptors opened here are not inherited by package tools run later. */
const O_CLOEXEC = 0o2000000;
/** unlinkat(2) flag: remove a directory. */
const AT_REMOVEDIR = 0x200;

interface Libc {
  openat: (dirfd: number, path: string, flags: number, ...mode: unknown[]) => number;
  renameat: (olddirfd: number, oldpath: string, newdirfd: number, newpath: string) => number;
  unlinkat: (dirfd: number, path: string, flags: number) => number;
  mkdirat: (dirfd: number, path: string, mode: number) => number;
  fallocate: (fd: number, mode: number, offset: number, len: number) => number;
  koffi: typeof Koffi;
}

let libc: Libc | null = null;

function load(): Libc {
  if (libc !== null) return libc;
  const koffi = createRequire(import.meta.url)("koffi") as typeof Koffi;
  let lib: ReturnType<typeof koffi.load>;
  try {
    lib = koffi.load("libc.so.6");
  } catch {
    lib = koffi.load("libc.so");
  }
  libc = {
    openat: lib.func("int openat(int dirfd, const char *path, int flags, ...)") as Libc["openat"],
    renameat: lib.func("int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)") as Libc["renameat"],
    unlinkat: lib.func("int unlinkat(int dirfd, const char *path, int flags)") as Libc["unlinkat"],
    mkdirat: lib.func("int mkdirat(int dirfd, const char *path, unsigned int mode)") as Libc["mkdirat"],
    fallocate: lib.func("int fallocate(int fd, int mode, int64_t offset, int64_t len)") as Libc["fallocate"],
    koffi,
  };
  return libc;
}

/** A Node-style error for the current errno. */
function errnoError(call: string, name: string): NodeJS.ErrnoException {
  const { koffi } = load();
  const n = koffi.errno();
  const code = Object.entries(koffi.os.errno).find(([, v]) => v === n)?.[0] ?? `E${n}`;
  const err: NodeJS.ErrnoException = new Error(`${code}: ${call} ${JSON.stringify(name)} failed`);
  err.code = code;
  err.errno = -n;
  err.syscall = call;
  return err;
}

/** A single path component: no `/`, not empty, not `.` or `..` (openat would otherwise leave the directory). */
function component(name: string): string {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) throw new Error(`not a file name inside a directory: ${JSON.stringify(name)}`);
  return name;
}

/** See the module comment. Close it when done. */
export class HeldDirectory {
  private constructor(readonly fd: number) {}

  /** Opens `path` as a directory (symlinks on the way are followed once, now). Throws like node:fs. */
  static open(path: string): HeldDirectory {
    return new HeldDirectory(openSync(path, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY));
  }

  /**
   * Opens `dir` (absolute, normalised) component by component from `/`, each with openat(O_DIRECTORY | O_NOFOLLOW)
   * relative to the one before, and fstat()s every one: each must be owned by root and not writable by group or
   * other (core/host/root-only-dir.ts, THE rule). Returns the last one, held. Throws an Error with `code`
   * `ENOTROOTONLY` and the reason in its message when a directory breaks the rule, `ELOOP` for a link on the way,
   * `ENOENT`/`ENOTDIR` as openat does. The walk cannot be raced: each directory was checked to be changeable by
   * root alone before the next name is looked up in it.
   */
  static openRootOnlyChain(dir: string): HeldDirectory {
    const chain = chainOf(dir);
    let held = new HeldDirectory(openSync("/", fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW));
    try {
      for (let i = 0; ; i++) {
        const st = held.stat();
        const why = rootOnlyDirRefusal(chain[i]!, { is_directory: st.isDirectory(), is_symlink: false, uid: st.uid, mode: st.mode & 0o7777 });
        if (why !== null) {
          const err: NodeJS.ErrnoException = new Error(why);
          err.code = "ENOTROOTONLY";
          throw err;
        }
        if (i === chain.length - 1) return held;
        const next = held.openDir(chain[i + 1]!.slice(chain[i + 1]!.lastIndexOf("/") + 1));
        held.close();
        held = next;
      }
    } catch (err) {
      held.close();
      throw err;
    }
  }

  /** Where the held directory is now, as the kernel names it (`/proc/self/fd/N`). */
  realPath(): string {
    return readlinkSync(`/proc/self/fd/${this.fd}`);
  }

  /** `openat(fd, name, flags, mode)` with O_CLOEXEC; returns a descriptor usable with node:fs. */
  openFile(name: string, flags: number, mode = 0o600): number {
    const fd = load().openat(this.fd, component(name), flags | O_CLOEXEC, "int", mode);
    if (fd < 0) throw errnoError("openat", name);
    return fd;
  }

  /**
   * `openat(fd, name, O_DIRECTORY | O_NOFOLLOW)`: the sub-directory `name`, held. A symbolic link there is
   * `ELOOP`, a non-directory `ENOTDIR`, nothing `ENOENT` (thrown like node:fs).
   */
  openDir(name: string): HeldDirectory {
    return new HeldDirectory(this.openFile(name, fsConstants.O_RDONLY | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW));
  }

  /** `mkdirat(fd, name, mode)` (the umask applies; `EEXIST` when anything is there, a link included). */
  mkdir(name: string, mode = 0o700): void {
    if (load().mkdirat(this.fd, component(name), mode) !== 0) throw errnoError("mkdirat", name);
  }

  /** `unlinkat(fd, name, AT_REMOVEDIR)`: removes an empty sub-directory. */
  rmdir(name: string): void {
    if (load().unlinkat(this.fd, component(name), AT_REMOVEDIR) !== 0) throw errnoError("unlinkat", name);
  }

  /** The entries of the held directory itself (read through `/proc/self/fd/N`, so never another directory). */
  list(): Dirent[] {
    return readdirSync(`/proc/self/fd/${this.fd}`, { withFileTypes: true });
  }

  /** fstat(2) of the held directory. */
  stat(): Stats {
    return fstatSync(this.fd);
  }

  /** fchown(2) / fchmod(2) of the held directory. */
  chown(uid: number, gid: number): void {
    fchownSync(this.fd, uid, gid);
  }

  chmod(mode: number): void {
    fchmodSync(this.fd, mode);
  }

  /** `renameat(fd, from, fd, to)`: atomic replacement inside the held directory. */
  rename(from: string, to: string): void {
    if (load().renameat(this.fd, component(from), this.fd, component(to)) !== 0) throw errnoError("renameat", `${from} -> ${to}`);
  }

  /** `unlinkat(fd, name, 0)`; a missing file is not an error (a directory is `EISDIR`). */
  unlink(name: string): void {
    if (load().unlinkat(this.fd, component(name), 0) !== 0) {
      const err = errnoError("unlinkat", name);
      if (err.code !== "ENOENT") throw err;
    }
  }

  /** `renameat(fd, from, to.fd, toName)`: moves an entry into another held directory (same filesystem). */
  renameTo(from: string, to: HeldDirectory, toName: string): void {
    if (load().renameat(this.fd, component(from), to.fd, component(toName)) !== 0) throw errnoError("renameat", `${from} -> ${toName}`);
  }

  /** fallocate(2) mode 0 on an open file descriptor: `bytes` allocated from offset 0 (no holes; EOPNOTSUPP where unsupported). */
  static fallocate(fd: number, bytes: number): void {
    if (load().fallocate(fd, 0, 0, bytes) !== 0) throw errnoError("fallocate", `fd ${fd}`);
  }

  /** fsync(2) of the directory, so a rename inside it is durable. */
  sync(): void {
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}
