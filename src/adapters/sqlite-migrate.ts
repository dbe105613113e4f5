import type Database from "better-sqlite3";
import { HostgateError } from "../core/errors.ts";

/** One schema step: from `version - 1` to `version`, as SQL run in one transaction. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Brings a database to the newest migration, tracking the schema version in `PRAGMA user_version`. Each
 * pending migration runs in its own transaction together with the version bump, so a crash leaves the
 * database at a whole version. Throws HostgateError `unavailable` when the database is newer than this
 * hostgate knows (never downgrades) or a migration fails (the database stays at the last whole version).
 * Returns the versions before and after.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[], what: string): { from: number; to: number } {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${what}: migration ${m.name} has version ${m.version}, expected ${i + 1}`);
  });
  const from = db.pragma("user_version", { simple: true }) as number;
  const newest = migrations.length;
  if (from > newest) {
    throw new HostgateError("unavailable", `${what} has schema version ${from}; this hostgate knows up to ${newest}.`, {
      hint: "Run the hostgate version that wrote it (or newer); the database was not changed.",
    });
  }
  for (const m of migrations.slice(from)) {
    try {
      db.transaction(() => {
        db.exec(m.sql);
        db.pragma(`user_version = ${m.version}`);
      })();
    } catch (err) {
      throw new HostgateError("unavailable", `${what}: migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, {
        hint: "The database is unchanged from the last whole version; check disk space and permissions, then restart.",
        cause: err,
      });
    }
  }
  return { from, to: newest };
}
