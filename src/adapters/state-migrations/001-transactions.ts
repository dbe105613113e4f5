import type { Migration } from "../sqlite-migrate.ts";

/**
 * Version 1: the transactions table as the first releases created it (without PRAGMA user_version, so a
 * database of that time reads as version 0 with the table present; IF NOT EXISTS makes this a no-op there).
 */
export const migration001: Migration = {
  version: 1,
  name: "transactions",
  sql: `
CREATE TABLE IF NOT EXISTS transactions (
  id TEXT PRIMARY KEY,
  action_name TEXT NOT NULL,
  params TEXT NOT NULL,
  risk_level TEXT NOT NULL,
  preview TEXT NOT NULL,
  preview_hash TEXT NOT NULL,
  state TEXT NOT NULL,
  actor TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  plan_expires_at INTEGER NOT NULL,
  approved_at INTEGER,
  approved_by TEXT,
  receipt_hash TEXT UNIQUE,
  receipt_expires_at INTEGER,
  receipt_consumed_at INTEGER,
  result TEXT,
  error TEXT
);
CREATE INDEX IF NOT EXISTS transactions_created ON transactions (created_at);
`,
};
