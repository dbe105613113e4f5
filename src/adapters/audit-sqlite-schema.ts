import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { AuditEntry, Checkpoint } from "../core/audit/entry.ts";

/**
 * SQLite schema of the audit store (docs/audit-format.md, "Storage"). `pos` is the storage order (equal to `seq`
 * when untampered); verification walks `pos` order so rows moved around are seen as reordered. Triggers make both
 * tables append-only: UPDATE and DELETE abort.
 */
export const AUDIT_SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_entries (
  pos INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  kind TEXT NOT NULL,
  actor TEXT NOT NULL,
  payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  key_id TEXT NOT NULL,
  signature TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS audit_entries_seq ON audit_entries(seq);
CREATE INDEX IF NOT EXISTS audit_entries_kind ON audit_entries(kind, seq);
CREATE INDEX IF NOT EXISTS audit_entries_ts ON audit_entries(ts);
CREATE TABLE IF NOT EXISTS audit_checkpoints (
  seq INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  hash TEXT NOT NULL,
  key_id TEXT NOT NULL,
  signature TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS audit_entries_no_update BEFORE UPDATE ON audit_entries
  BEGIN SELECT RAISE(ABORT, 'audit entries are append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_entries_no_delete BEFORE DELETE ON audit_entries
  BEGIN SELECT RAISE(ABORT, 'audit entries are append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
  BEGIN SELECT RAISE(ABORT, 'audit checkpoints are append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
  BEGIN SELECT RAISE(ABORT, 'audit checkpoints are append-only'); END;
`;

/** Columns selected for an entry, in {@link AuditEntry} order. */
export const ENTRY_COLUMNS = "seq, ts, kind, actor, payload, prev_hash, hash, key_id, signature";

/** Opens an existing audit database read-only (throws the SQLite error if it cannot). */
export function openReadOnly(path: string): Database.Database {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma("query_only = ON");
  return db;
}

/** All checkpoints stored in the database, by seq. */
export function readDbCheckpoints(db: Database.Database): Checkpoint[] {
  return db.prepare("SELECT seq, hash, ts, key_id, signature FROM audit_checkpoints ORDER BY seq").all() as Checkpoint[];
}

/** Genesis and rotation entries (key announcements), storage order. */
export function readAnnouncements(db: Database.Database): AuditEntry[] {
  return db
    .prepare(`SELECT ${ENTRY_COLUMNS} FROM audit_entries WHERE kind IN ('audit.genesis', 'audit.key_rotation') ORDER BY pos`)
    .all() as AuditEntry[];
}

/**
 * Opens a database read-only even when it lives on a read-only filesystem: a WAL database there cannot be opened in
 * place (SQLite needs to create its `-shm` file, and this build has no URI `immutable` support), so the database and
 * its `-wal` are copied to a private temporary directory and the copy is opened. `cleanup` removes the copy.
 */
export function openReadOnlyAnywhere(path: string): { db: Database.Database; path: string; cleanup: () => void } {
  try {
    const db = openReadOnly(path);
    try {
      db.prepare("SELECT count(*) FROM sqlite_master").get();
    } catch (err) {
      db.close();
      throw err;
    }
    return { db, path, cleanup: () => undefined };
  } catch (err) {
    if ((err as { code?: string }).code !== "SQLITE_CANTOPEN" || !existsSync(path)) throw err;
  }
  const dir = mkdtempSync(join(tmpdir(), "hostgate-audit-ro-"));
  const copy = join(dir, "audit.db");
  try {
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    return { db: openReadOnly(copy), path: copy, cleanup: () => {
        rmSync(dir, { recursive: true, force: true });
      } };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
