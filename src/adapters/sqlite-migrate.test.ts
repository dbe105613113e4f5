import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { HostgateError } from "../core/errors.ts";
import { migrate, type Migration } from "./sqlite-migrate.ts";
import { STATE_MIGRATIONS } from "./state-migrations/index.ts";
import { SqliteTransactionStore } from "./transaction-sqlite.ts";

const dbPath = (): string => join(mkdtempSync(join(tmpdir(), `hg-seams-migrate-${process.pid}-`)), "state.db");

/** The schema every hostgate before migrations wrote (no user_version: it reads as 0), with one row in it. */
function writeV1Database(path: string): void {
  const db = new Database(path);
  db.exec(`CREATE TABLE transactions (id TEXT PRIMARY KEY, action_name TEXT NOT NULL, params TEXT NOT NULL, risk_level TEXT NOT NULL, preview TEXT NOT NULL,
    preview_hash TEXT NOT NULL, state TEXT NOT NULL, actor TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, plan_expires_at INTEGER NOT NULL,
    approved_at INTEGER, approved_by TEXT, receipt_hash TEXT UNIQUE, receipt_expires_at INTEGER, receipt_consumed_at INTEGER, result TEXT, error TEXT);
    CREATE INDEX transactions_created ON transactions (created_at);`);
  db.prepare(`INSERT INTO transactions (id, action_name, params, risk_level, preview, preview_hash, state, actor, created_at, updated_at, plan_expires_at, approved_by, receipt_hash, receipt_expires_at)
    VALUES ('tx-1', 'RestartService', '{"unit":"nginx.service"}', 'medium', '{"summary":"s","text":"t"}', 'abc', 'approved', 'mcp', 1, 2, 3, 'admin', 'rh', 4)`).run();
  db.close();
}

describe("state database migrations (PRAGMA user_version)", () => {
  it("creates a fresh database at the newest version", () => {
    const path = dbPath();
    new SqliteTransactionStore(path).close();
    const db = new Database(path);
    expect(db.pragma("user_version", { simple: true })).toBe(STATE_MIGRATIONS.length);
    db.close();
  });

  it("migrates a v1 database (today's schema, no user_version) with its data: every row reads as host local", () => {
    const path = dbPath();
    writeV1Database(path);
    const store = new SqliteTransactionStore(path);
    expect(store.get("tx-1")).toMatchObject({ id: "tx-1", action_name: "RestartService", host: "local", params: { unit: "nginx.service" }, state: "approved", actor: "mcp", approved_by: "admin", receipt_expires_at: 4 });
    expect(store.get("tx-1")).toMatchObject({ planner: null, intent: null, separation: null }); // unknown before v3
    expect(store.findByReceiptHash("rh").map((t) => t.id)).toEqual(["tx-1"]);
    expect(store.get("tx-1")).toMatchObject({ plan_id: "tx-1", plan_seq: 1 }); // a plan of one since v5
    store.close();
    const db = new Database(path);
    expect(db.pragma("user_version", { simple: true })).toBe(STATE_MIGRATIONS.length);
    db.close();
  });

  it("migrates from every earlier version to the newest, keeping rows", () => {
    for (let from = 0; from <= STATE_MIGRATIONS.length; from++) {
      const path = dbPath();
      const db = new Database(path);
      migrate(db, STATE_MIGRATIONS.slice(0, from), "test");
      expect(db.pragma("user_version", { simple: true })).toBe(from);
      if (from >= 1) {
        db.prepare(`INSERT INTO transactions (id, action_name, params, risk_level, preview, preview_hash, state, actor, created_at, updated_at, plan_expires_at)
          VALUES ('row', 'GetLoad', '{}', 'low', '{}', 'h', 'planned', 'a', 1, 1, 1)`).run();
      }
      expect(migrate(db, STATE_MIGRATIONS, "test")).toEqual({ from, to: STATE_MIGRATIONS.length });
      const rows = db.prepare("SELECT id, host FROM transactions").all();
      expect(rows).toEqual(from >= 1 ? [{ id: "row", host: "local" }] : []);
      db.close();
    }
  });

  it("refuses a database newer than this hostgate and leaves it unchanged", () => {
    const path = dbPath();
    const db = new Database(path);
    db.pragma("user_version = 99");
    db.close();
    expect(() => new SqliteTransactionStore(path)).toThrow(new RegExp(`schema version 99; this hostgate knows up to ${STATE_MIGRATIONS.length}`));
  });

  it("a failing migration leaves the database at the last whole version", () => {
    const db = new Database(":memory:");
    const broken: Migration[] = [...STATE_MIGRATIONS, { version: STATE_MIGRATIONS.length + 1, name: "broken", sql: "CREATE TABLE half (x); INSERT INTO nowhere VALUES (1);" }];
    let err: unknown;
    try { migrate(db, broken, "test"); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(HostgateError);
    expect((err as HostgateError).code).toBe("unavailable");
    expect(db.pragma("user_version", { simple: true })).toBe(STATE_MIGRATIONS.length);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").all()).toEqual([]);
    db.close();
  });

  it("rejects a migration list with a gap", () => {
    const db = new Database(":memory:");
    expect(() => migrate(db, [STATE_MIGRATIONS[1]!], "test")).toThrow(/expected 1/);
    db.close();
  });
});
