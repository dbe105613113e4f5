import { chmodSync, closeSync, lstatSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

/**
 * Files the daemon keeps under its state directory are its owner's alone (issue 25): 0600 files, 0700
 * directories, whatever the process umask. The packaged unit sets `UMask=0077` and `StateDirectoryMode=0700`;
 * these helpers give the same result to a daemon started any other way (`HOSTGATE_STATE_DIR`, embedded mode).
 */

/** SQLite's side files of a database in WAL or rollback mode (sqlite.org/tempfiles.html). */
const SQLITE_SIDE_FILES = ["-wal", "-shm", "-journal"] as const;

/** Sets `path` to `mode` when it exists with other permission bits; a missing path is left alone. Never follows a link. */
function tighten(path: string, mode: number): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) return;
  if ((st.mode & 0o777) !== mode) chmodSync(path, mode);
}

/**
 * Creates directory `dir` (and missing parents) with mode 0700, and sets an existing `dir` that group or others
 * may enter (one an older daemon made 0755) to 0700. Throws the fs error when it cannot.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700);
}

/**
 * Opens (creating if missing) the SQLite database `path` so that only its owner can read it: the directory as in
 * {@link ensurePrivateDir}, the file created 0600 before SQLite opens it (SQLite gives its -wal, -shm and -journal
 * files the database file's mode, whatever the umask: its unix VFS, `robust_open`), and an existing database or
 * side file with other bits (left by an older daemon) set to 0600. The caller sets pragmas; call
 * {@link tightenDatabaseFiles} after switching to WAL when side files may predate this open. Throws what
 * better-sqlite3 or fs throw.
 */
export function openPrivateDatabase(path: string): Database.Database {
  ensurePrivateDir(dirname(path));
  closeSync(openSync(path, "a", 0o600));
  tightenDatabaseFiles(path);
  return new Database(path);
}

/** Sets the database `path` and whichever of its side files exist to 0600. */
export function tightenDatabaseFiles(path: string): void {
  tighten(path, 0o600);
  for (const suffix of SQLITE_SIDE_FILES) tighten(`${path}${suffix}`, 0o600);
}
