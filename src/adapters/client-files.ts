import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, closeSync, constants, existsSync, fchmodSync, fchownSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, realpathSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, delimiter, dirname, join } from "node:path";
import { untrustedWriter } from "../core/service/tree-trust.ts";

/**
 * The file side of `hostgate setup`: reading a client's config file, writing it back atomically after a
 * timestamped backup (0600), keeping its owner and mode (0600 when it holds a secret), and the checks around
 * it (read-only files, .gitignore, which clients are installed, paths root must not write). Path-based on
 * purpose: as root for another user's home setup runs as that user (run-as-owner.ts), so the kernel
 * checks every component; as root for its own home `rootUnsafePath` refuses paths others could shape.
 */

/** A client file as found on disk. `text` is null when it does not exist yet. */
export interface ClientFile {
  /** The path setup was asked to edit. */
  path: string;
  /** Where the bytes really are (a symlinked dotfile is edited in place, the link kept). */
  realPath: string;
  text: string | null;
  /** Permission bits of the existing file, or null. */
  mode: number | null;
  /** Owner uid of the existing file, or null. */
  uid: number | null;
}

/** Reads a client file, or says why it cannot be used (never throws for ordinary file problems). */
export function readClientFile(path: string): { ok: true; file: ClientFile } | { ok: false; reason: string } {
  let realPath = path;
  try {
    const link = lstatSync(path);
    if (link.isSymbolicLink()) {
      realPath = realpathSync(path);
      // Root (e.g. under sudo) follows a link only to a file of the link's owner: a user's dotfile link must not
      // make root edit someone else's file (/etc/…).
      if (process.getuid?.() === 0 && statSync(realPath).uid !== link.uid) {
        return { ok: false, reason: `${path} is a symlink to ${realPath}, which belongs to another user (uid ${statSync(realPath).uid}); not followed as root` };
      }
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") return { ok: false, reason: (err as Error).message };
    // A dangling symlink lands here too: lstat succeeds only for the link, realpath fails below.
  }
  try {
    const st = statSync(realPath);
    if (!st.isFile()) return { ok: false, reason: `${realPath} is not a regular file` };
    return { ok: true, file: { path, realPath, text: readFileSync(realPath, "utf8"), mode: st.mode & 0o7777, uid: st.uid } };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      try {
        if (lstatSync(path).isSymbolicLink()) return { ok: false, reason: `${path} is a symlink to a missing file` };
      } catch { /* plain absent file */ }
      return { ok: true, file: { path, realPath, text: null, mode: null, uid: null } };
    }
    return { ok: false, reason: code === "EACCES" ? `${realPath} cannot be read (permission denied)` : (err as Error).message };
  }
}

function checkComponents(path: string): string | null {
  let cur = "";
  for (const part of path.split("/").filter(Boolean)) {
    cur = `${cur}/${part}`;
    let st;
    try {
      st = lstatSync(cur);
    } catch {
      return null; // nothing below a missing component exists yet: setup creates it, as root, under a root-owned parent
    }
    // The rule of core/service/tree-trust.ts (sticky directories like /tmp allowed, as sshd); only the
    // directories' modes matter here: the file itself is replaced, not written in place.
    const why = untrustedWriter({ path: cur, uid: st.uid, gid: st.gid, mode: st.mode & 0o7777, dir: st.isDirectory() }, { sticky: "allow" });
    if (st.uid !== 0) return `${cur} belongs to uid ${st.uid}: setup as root does not write under another user's files; run it as that user (sudo -u '#${st.uid}' hostgate setup …)`;
    if (st.isDirectory() && why !== null) return `${cur} is writable by other users (mode ${(st.mode & 0o7777).toString(8)}): setup as root does not write there; run it as the user the file is for`;
  }
  return null;
}

/**
 * For root configuring its own home: why `path` must not be written, or null. Every existing component from
 * `/` down (the path as given and as its links resolve) must belong to root, and no directory on it may be
 * writable by others without the sticky bit (/tmp is fine); otherwise another user could redirect root's
 * writes. A home of another user never gets here: setup runs as that user (run-as-owner.ts).
 */
export function rootUnsafePath(path: string): string | null {
  const given = checkComponents(path);
  if (given !== null) return given;
  let existing = path;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    const real = join(realpathSync(existing), path.slice(existing.length));
    return real === path ? null : checkComponents(real);
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Why an existing file must not be written, or null: its owner-write bit is off (a user made it read-only on
 * purpose; root would otherwise write it anyway), or its directory is not writable.
 */
export function notWritable(file: ClientFile): string | null {
  if (file.mode !== null && (file.mode & 0o200) === 0) return `${file.realPath} is read-only (mode ${file.mode.toString(8).padStart(4, "0")}); make it writable (chmod u+w) and run setup again`;
  return null;
}

/** Local time as YYYYMMDD-HHMMSS, for backup names that sort by time. */
export function backupStamp(now: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
}

function ownerOfParent(path: string): { uid: number; gid: number } | null {
  let dir = dirname(path);
  while (!existsSync(dir)) dir = dirname(dir);
  const st = statSync(dir);
  return { uid: st.uid, gid: st.gid };
}

function mkdirOwned(dir: string, owner: { uid: number; gid: number } | null): void {
  if (existsSync(dir)) return;
  mkdirOwned(dirname(dir), owner);
  mkdirSync(dir, { mode: 0o755 });
  if (owner && process.getuid?.() === 0) chownSync(dir, owner.uid, owner.gid);
}

/**
 * Copies the bytes of `target` (stat `st`) to a new file `<dir>/<name>`, or `<name>.1`, `.2`… when taken:
 * created 0600 with O_EXCL and O_NOFOLLOW (an old client file may hold a token, and a planted link is not
 * written through), owned like the file when root writes. Returns its path.
 */
function writeBackup(target: string, st: { uid: number; gid: number }, dir: string, name: string): string {
  let path = join(dir, name);
  for (let i = 1; existsSync(path); i++) path = join(dir, `${name}.${i}`);
  const bytes = readFileSync(target);
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, bytes);
    fchmodSync(fd, 0o600);
    if (process.getuid?.() === 0) fchownSync(fd, st.uid, st.gid);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return path;
}

/**
 * Writes `text` to a client file: a backup copy of the existing file first (`<file>.hostgate-backup-<stamp>`
 * beside it, or in `opts.backupDir` when given: project files keep theirs out of the repository; mode 0600,
 * owner kept), then a temp file in the same directory, fsync, rename. Mode: 0600 when `secret`, else the
 * existing mode (new files 0644). Owner: kept (when root writes its own files). Returns the backup path
 * (null for a new file). Throws node:fs errors.
 */
export function writeClientFile(file: ClientFile, text: string, opts: { secret: boolean; now?: Date; backupDir?: string }): { backup: string | null } {
  const target = file.realPath;
  const existing = file.text !== null ? statSync(target) : null;
  const owner = existing ? { uid: existing.uid, gid: existing.gid } : ownerOfParent(target);
  mkdirOwned(dirname(target), owner);
  let backup: string | null = null;
  if (existing) {
    const dir = opts.backupDir ?? dirname(target);
    if (opts.backupDir !== undefined) mkdirSync(dir, { recursive: true, mode: 0o700 });
    backup = writeBackup(target, existing, dir, `${basename(target)}.hostgate-backup-${backupStamp(opts.now)}`);
  }
  const mode = opts.secret ? 0o600 : existing ? existing.mode & 0o777 : 0o644;
  const tmp = join(dirname(target), `.${basename(target)}.hostgate-${process.pid}.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  chmodSync(tmp, mode);
  if (owner && process.getuid?.() === 0) chownSync(tmp, owner.uid, owner.gid);
  renameSync(tmp, target);
  return { backup };
}

/**
 * Whether git would commit a file: `tracked` (already in the index: ignoring it no longer helps), `ignored`,
 * `not_ignored`, or `unknown` (no git, or not in a repository). Git runs with the repository's fsmonitor and
 * hooks switched off, so checking a cloned repository runs nothing from it.
 */
export function gitIgnoreStatus(path: string): "tracked" | "ignored" | "not_ignored" | "unknown" {
  const git = (args: string[]) => spawnSync("git", ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", ...args, "--", basename(path)], { cwd: dirname(path), stdio: "ignore", timeout: 5000, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } }).status;
  const tracked = git(["ls-files", "--error-unmatch"]);
  if (tracked === 0) return "tracked";
  if (tracked !== 1) return "unknown";
  const ignored = git(["check-ignore", "-q"]);
  if (ignored === 0) return "ignored";
  if (ignored === 1) return "not_ignored";
  return "unknown";
}

/** Absolute path of a command on PATH, or null. */
export function onPath(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, command);
    try {
      if (statSync(p).isFile() && (statSync(p).mode & 0o111) !== 0) return p;
    } catch { /* not here */ }
  }
  return null;
}

/** Whether any of the paths exists or any of the commands is on PATH. */
export function anyPresent(probe: { paths: string[]; commands: string[] }, env: NodeJS.ProcessEnv = process.env): boolean {
  return probe.paths.some((p) => existsSync(p)) || probe.commands.some((c) => onPath(c, env) !== null);
}

/**
 * The subdirectories of `dir` (absolute paths, sorted by name), as a client's extensions directory holds one per
 * extension (~/.gemini/extensions/<name>/); a link to a directory counts. Missing or unreadable: none.
 */
export function clientSubdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() || (e.isSymbolicLink() && existsSync(join(dir, e.name)) && statSync(join(dir, e.name)).isDirectory()))
      .map((e) => join(dir, e.name)).sort();
  } catch {
    return [];
  }
}
