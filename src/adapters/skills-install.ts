import { randomBytes } from "node:crypto";
import { closeSync, constants, fchmodSync, fchownSync, fstatSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { HostgateError } from "../core/errors.ts";
import { treeDigest, DIGEST_RE, type SkillDigest } from "../core/skills/digest.ts";
import { SKILL_LIMITS } from "../core/skills/limits.ts";
import { formatLock, LOCK_FILE, parseLock, type LockFile } from "../core/skills/lock.ts";
import { checkTreePath, TreeError, type TreeFile } from "../core/skills/tree.ts";
import type { LockState, SkillInstaller, TargetState } from "../ports/skill-store.ts";
import { HeldDirectory } from "./held-directory.ts";
import { sha256 } from "./skills-fs.ts";

/**
 * The installer for client skill folders (issue 21, T3-27). The base (a home or project folder the daemon
 * chose) is resolved once per call and held as a directory descriptor; every component under it
 * (`.agents`, `skills`, `<name>`, the lock file) is opened with `openat(O_NOFOLLOW)` and created with
 * `mkdirat`/`openat(O_EXCL)` relative to a held descriptor, and renamed with `renameat`, so a symbolic link
 * anywhere under the base, or one swapped in during the call, is never followed. A component that is a link,
 * not a directory, or owned by anyone but the base's owner blocks the target. Folders and files the daemon
 * creates are given to the base's owner (when the daemon runs as root). An existing `<name>` folder is
 * replaced only when the daemon created it (its device and inode are in the daemon's own record, in the state
 * directory) and it still holds the tree recorded then; anything else is `blocked`, so no plan reveals the
 * digest of a folder hostgate did not write.
 */

const RecordSchema = z.object({
  installed_version: z.literal(1),
  dirs: z.array(z.object({ dev: z.number(), ino: z.number(), path: z.string(), digest: z.string().regex(DIGEST_RE) }).strict()),
}).strict();
type InstallRecord = z.infer<typeof RecordSchema>;

const tmpName = (base: string): string => `.hostgate-tmp-${base}-${randomBytes(6).toString("hex")}`;

/** Why a component cannot be used, for a `blocked` reason. */
class Blocked extends Error {}

const errCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

/** Who must own every component under a base: the base's owner. */
interface Owner {
  uid: number;
  gid: number;
}

function checkOwner(dir: HeldDirectory, owner: Owner, shown: string): void {
  const st = dir.stat();
  if (st.uid !== owner.uid) throw new Blocked(`${shown} is owned by uid ${st.uid}, not by the base's owner (uid ${owner.uid}); hostgate does not write there.`);
}

/** O_PATH on Linux: a descriptor for the entry itself (with O_NOFOLLOW, the link itself), usable with fstat. */
const O_PATH = 0o10000000;

/** Whether `name` under `dir` is a symbolic link (openat(O_DIRECTORY|O_NOFOLLOW) says ENOTDIR for one). */
function isLink(dir: HeldDirectory, name: string): boolean {
  try {
    const fd = dir.openFile(name, O_PATH | constants.O_NOFOLLOW);
    try { return fstatSync(fd).isSymbolicLink(); } finally { closeSync(fd); }
  } catch {
    return false;
  }
}

/** Opens `name` under `dir` without following a link; null when absent; Blocked for a link, a non-directory or another owner. */
function openChild(dir: HeldDirectory, name: string, owner: Owner, shown: string): HeldDirectory | null {
  let child: HeldDirectory;
  try {
    child = dir.openDir(name);
  } catch (err) {
    const code = errCode(err);
    if (code === "ENOENT") return null;
    if (code === "ELOOP" || (code === "ENOTDIR" && isLink(dir, name))) throw new Blocked(`${shown} is a symbolic link; hostgate does not write through links (replace it with a real folder to install here).`);
    if (code === "ENOTDIR") throw new Blocked(`${shown} exists and is not a folder.`);
    throw new Blocked(`${shown} cannot be opened: ${(err as Error).message}.`);
  }
  try {
    checkOwner(child, owner, shown);
  } catch (err) {
    child.close();
    throw err;
  }
  return child;
}

/** Opens or creates (0755, given to the owner) `name` under `dir`, without following links. */
function ensureChild(dir: HeldDirectory, name: string, owner: Owner, shown: string): HeldDirectory {
  const found = openChild(dir, name, owner, shown);
  if (found) return found;
  try {
    dir.mkdir(name, 0o700);
  } catch (err) {
    if (errCode(err) !== "EEXIST") throw err;
  }
  const made = dir.openDir(name);
  giveTo(made.fd, owner);
  made.chmod(0o755);
  checkOwner(made, owner, shown);
  return made;
}

/** fchown to the base's owner when this process can and the owner differs (the system daemon as root). */
function giveTo(fd: number, owner: Owner): void {
  const st = fstatSync(fd);
  if (st.uid !== owner.uid || st.gid !== owner.gid) {
    if (process.getuid?.() === 0) fchownSync(fd, owner.uid, owner.gid);
  }
}

/** Reads a tree below a held folder: regular files only, no links, within the caps (like skills-fs readTree). */
function readTreeAt(top: HeldDirectory): TreeFile[] {
  const out: TreeFile[] = [];
  let total = 0;
  const walk = (dir: HeldDirectory, rel: string, depth: number): void => {
    if (depth > SKILL_LIMITS.treeDepth) throw new TreeError(rel, `deeper than ${SKILL_LIMITS.treeDepth} levels`);
    const entries = dir.list().map((e) => e.name).sort();
    for (const name of entries) {
      const path = rel === "" ? name : `${rel}/${name}`;
      checkTreePath(path);
      let fd: number;
      try {
        fd = dir.openFile(name, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      } catch (err) {
        if (errCode(err) === "ELOOP") throw new TreeError(path, "symbolic link");
        throw err;
      }
      try {
        const st = fstatSync(fd);
        if (st.isDirectory()) {
          const sub = dir.openDir(name);
          try { walk(sub, path, depth + 1); } finally { sub.close(); }
          continue;
        }
        if (!st.isFile()) throw new TreeError(path, "not a regular file");
        if (st.size > SKILL_LIMITS.fileBytes) throw new TreeError(path, `file larger than ${SKILL_LIMITS.fileBytes} bytes`);
        if (out.length >= SKILL_LIMITS.treeFiles) throw new TreeError(path, `more than ${SKILL_LIMITS.treeFiles} files`);
        const buf = readFileSync(fd);
        total += buf.length;
        if (total > SKILL_LIMITS.treeBytes) throw new TreeError(path, `tree larger than ${SKILL_LIMITS.treeBytes} bytes`);
        out.push({ path, bytes: new Uint8Array(buf.buffer, buf.byteOffset, buf.length) });
      } finally {
        closeSync(fd);
      }
    }
  };
  walk(top, "", 1);
  return out;
}

/** Writes `files` into the new, empty held folder `top`: folders 0755, files 0644 (0755 under scripts/), all given to the owner. */
function writeTreeAt(top: HeldDirectory, files: readonly TreeFile[], owner: Owner): void {
  const dirs = new Map<string, HeldDirectory>([["", top]]);
  const dirOf = (rel: string): HeldDirectory => {
    const known = dirs.get(rel);
    if (known) return known;
    const cut = rel.lastIndexOf("/");
    const parent = dirOf(cut < 0 ? "" : rel.slice(0, cut));
    const name = cut < 0 ? rel : rel.slice(cut + 1);
    parent.mkdir(name, 0o700);
    const d = parent.openDir(name);
    giveTo(d.fd, owner);
    d.chmod(0o755);
    dirs.set(rel, d);
    return d;
  };
  try {
    for (const f of files) {
      const path = checkTreePath(f.path);
      const cut = path.lastIndexOf("/");
      const dir = dirOf(cut < 0 ? "" : path.slice(0, cut));
      const fd = dir.openFile(path.slice(cut + 1), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        writeFileSync(fd, f.bytes);
        giveTo(fd, owner);
        fchmodSync(fd, path.startsWith("scripts/") ? 0o755 : 0o644);
      } finally {
        closeSync(fd);
      }
    }
  } finally {
    for (const [rel, d] of dirs) if (rel !== "") d.close();
  }
}

/** Removes `name` under `dir` and everything below it, through descriptors, never following a link. */
function removeAt(dir: HeldDirectory, name: string): void {
  let sub: HeldDirectory;
  try {
    sub = dir.openDir(name);
  } catch (err) {
    if (errCode(err) === "ENOENT") return;
    if (errCode(err) === "ELOOP" || errCode(err) === "ENOTDIR") { dir.unlink(name); return; }
    throw err;
  }
  try {
    sub.chmod(0o700);
    for (const e of sub.list()) {
      try {
        sub.unlink(e.name);
      } catch (err) {
        if (errCode(err) !== "EISDIR") throw err;
        removeAt(sub, e.name);
      }
    }
  } finally {
    sub.close();
  }
  dir.rmdir(name);
}

/** Options of {@link fsSkillInstaller}. */
export interface InstallerOptions {
  /** The daemon's record of the folders it created (`<state>/skills/installed.json`, mode 0600). */
  recordPath: string;
}

/** See the module comment. Paths given are relative to the base: `.claude/skills/<name>`. */
export function fsSkillInstaller(opts: InstallerOptions): SkillInstaller {
  const readRecord = async (): Promise<InstallRecord> => {
    let text: string;
    try {
      text = await readFile(opts.recordPath, "utf8");
    } catch (err) {
      if (errCode(err) === "ENOENT") return { installed_version: 1, dirs: [] };
      throw err;
    }
    const r = RecordSchema.safeParse(JSON.parse(text));
    if (!r.success) throw new HostgateError("internal_error", `${opts.recordPath} is not a valid install record.`, { hint: "Remove it; folders hostgate installed then count as not installed by hostgate (blocked) until removed by hand." });
    return r.data;
  };
  const writeRecord = async (rec: InstallRecord): Promise<void> => {
    await mkdir(dirname(opts.recordPath), { recursive: true, mode: 0o700 });
    const tmp = `${opts.recordPath}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
    await writeFile(tmp, `${JSON.stringify(rec, null, 2)}\n`, { flag: "wx", mode: 0o600 });
    await rename(tmp, opts.recordPath);
  };
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => { const p = chain.then(fn, fn); chain = p.catch(() => undefined); return p; };

  /** Holds the base, runs `fn` with it, its real path and its owner; closes it after. */
  const withBase = async <T>(base: string, fn: (held: HeldDirectory, real: string, owner: Owner) => T | Promise<T>): Promise<T> => {
    let held: HeldDirectory;
    try {
      held = HeldDirectory.open(base);
    } catch (err) {
      throw new HostgateError("unavailable", `The install base ${base} cannot be opened: ${(err as Error).message}.`, { hint: "Check skills.install in the config; the base must be an existing folder." });
    }
    try {
      const st = held.stat();
      return await fn(held, held.realPath(), { uid: st.uid, gid: st.gid });
    } finally {
      held.close();
    }
  };

  /** Walks `parts` from the base without following links; returns the held folders (caller closes) or throws Blocked. */
  const walk = (held: HeldDirectory, real: string, parts: readonly string[], owner: Owner, create: boolean): HeldDirectory[] => {
    const chain: HeldDirectory[] = [];
    let cur = held;
    let shown = real;
    try {
      for (const p of parts) {
        shown = `${shown}/${p}`;
        const next = create ? ensureChild(cur, p, owner, shown) : openChild(cur, p, owner, shown);
        if (!next) break;
        chain.push(next);
        cur = next;
      }
      return chain;
    } catch (err) {
      for (const d of chain) d.close();
      throw err;
    }
  };
  const closeAll = (ds: readonly HeldDirectory[]): void => { for (const d of ds) d.close(); };
  const split = (rel: string): string[] => checkTreePath(rel).split("/");

  const inspectAt = async (held: HeldDirectory, real: string, owner: Owner, rel: string): Promise<TargetState & { ino?: [number, number] }> => {
    const parts = split(rel);
    let dirs: HeldDirectory[];
    try {
      dirs = walk(held, real, parts, owner, false);
    } catch (err) {
      if (err instanceof Blocked) return { state: "blocked", reason: err.message };
      throw err;
    }
    try {
      if (dirs.length < parts.length) return { state: "absent" };
      const target = dirs[dirs.length - 1]!;
      const st = target.stat();
      const rec = (await readRecord()).dirs.find((d) => d.dev === st.dev && d.ino === st.ino);
      if (!rec) return { state: "blocked", reason: `${real}/${rel} exists and was not installed by hostgate; it is never replaced (move it away to install here).` };
      let digest: SkillDigest;
      try {
        digest = treeDigest(readTreeAt(target), sha256);
      } catch (err) {
        return { state: "blocked", reason: `${real}/${rel} holds something a skill may not (${(err as Error).message}); remove it to install here.` };
      }
      if (digest !== rec.digest) return { state: "blocked", reason: `${real}/${rel} was changed since hostgate installed it; it is not replaced (restore or remove it).` };
      return { state: "present", digest, ino: [st.dev, st.ino] };
    } finally {
      closeAll(dirs);
    }
  };

  return {
    resolveBase: (base) => withBase(base, (_h, real) => real),
    inspect: (base, rel) => withBase(base, async (held, real, owner): Promise<TargetState> => {
      const state = await inspectAt(held, real, owner, rel);
      return state.state === "present" ? { state: "present", digest: state.digest } : state;
    }),
    install: (base, rel, files, digest) => serial(() => withBase(base, async (held, real, owner) => {
      const parts = split(rel);
      const name = parts[parts.length - 1]!;
      const now = await inspectAt(held, real, owner, rel);
      if (now.state === "blocked") throw new HostgateError("confirm.plan_changed", now.reason, { hint: "Plan again." });
      const parents = walk(held, real, parts.slice(0, -1), owner, true);
      const parent = parents[parents.length - 1] ?? held;
      const tmp = tmpName(name);
      const old = tmpName(`${name}-old`);
      try {
        parent.mkdir(tmp, 0o700);
        const top = parent.openDir(tmp);
        let id: [number, number];
        try {
          writeTreeAt(top, files, owner);
          giveTo(top.fd, owner);
          top.chmod(0o755);
          const st = top.stat();
          id = [st.dev, st.ino];
        } finally {
          top.close();
        }
        if (now.state === "present") parent.rename(name, old);
        try {
          parent.rename(tmp, name);
        } catch (err) {
          if (now.state === "present") parent.rename(old, name);
          throw err;
        }
        if (now.state === "present") removeAt(parent, old);
        const rec = await readRecord();
        const path = `${real}/${rel}`;
        rec.dirs = rec.dirs.filter((d) => !(now.ino && d.dev === now.ino[0] && d.ino === now.ino[1]) && d.path !== path);
        rec.dirs.push({ dev: id[0], ino: id[1], path, digest });
        rec.dirs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        await writeRecord(rec);
      } catch (err) {
        try { removeAt(parent, tmp); } catch { /* best effort */ }
        throw err;
      } finally {
        closeAll(parents);
      }
    })),
    readLock: (base) => withBase(base, (held, real, owner): LockState => {
      const shown = `${real}/.agents/${LOCK_FILE}`;
      let dirs: HeldDirectory[];
      try {
        dirs = walk(held, real, [".agents"], owner, false);
      } catch (err) {
        if (err instanceof Blocked) return { state: "blocked", path: shown, reason: err.message };
        throw err;
      }
      try {
        if (dirs.length === 0) return { state: "absent", path: shown };
        let fd: number;
        try {
          fd = dirs[0]!.openFile(LOCK_FILE, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        } catch (err) {
          if (errCode(err) === "ENOENT") return { state: "absent", path: shown };
          if (errCode(err) === "ELOOP") return { state: "blocked", path: shown, reason: `${shown} is a symbolic link; hostgate does not read or write through links.` };
          throw err;
        }
        try {
          const st = fstatSync(fd);
          if (!st.isFile()) return { state: "blocked", path: shown, reason: `${shown} is not a regular file.` };
          if (st.uid !== owner.uid) return { state: "blocked", path: shown, reason: `${shown} is owned by uid ${st.uid}, not by the base's owner (uid ${owner.uid}).` };
          if (st.size > SKILL_LIMITS.recordBytes) throw new HostgateError("invalid_params", `${shown} is larger than ${SKILL_LIMITS.recordBytes} bytes.`);
          try {
            return { state: "present", path: shown, lock: parseLock(readFileSync(fd, "utf8")) };
          } catch (err) {
            throw new HostgateError("invalid_params", `${shown}: ${(err as Error).message}`, { hint: "Fix or remove the lock file." });
          }
        } finally {
          closeSync(fd);
        }
      } finally {
        closeAll(dirs);
      }
    }),
    writeLock: (base, lock: LockFile) => serial(() => withBase(base, (held, real, owner) => {
      const dirs = (() => {
        try {
          return walk(held, real, [".agents"], owner, true);
        } catch (err) {
          if (err instanceof Blocked) throw new HostgateError("confirm.plan_changed", err.message, { hint: "Plan again." });
          throw err;
        }
      })();
      const dir = dirs[0]!;
      const tmp = tmpName(LOCK_FILE);
      try {
        const fd = dir.openFile(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
        try {
          writeFileSync(fd, formatLock(lock));
          giveTo(fd, owner);
          fchmodSync(fd, 0o644);
        } finally {
          closeSync(fd);
        }
        dir.rename(tmp, LOCK_FILE);
      } catch (err) {
        dir.unlink(tmp);
        throw err;
      } finally {
        closeAll(dirs);
      }
    })),
  };
}
