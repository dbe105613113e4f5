import type { Migration } from "../sqlite-migrate.ts";

/** Every column a transaction row has from version 5 on, in table order. */
const COLUMNS = "id, action_name, host, params, risk_level, preview, preview_hash, preview_salt, state, actor, created_at, updated_at, plan_expires_at, approved_at, approved_by, receipt_hash, receipt_expires_at, receipt_consumed_at, result, error, planner, intent, separation";

/**
 * Version 5 (issue 22): plans. Each transaction names its plan (`plan_id`, nullable) and its place in it
 * (`plan_seq`, from 1); one approval mints one receipt for all steps of a plan, so every step stores the same
 * receipt hash. SQLite cannot drop the UNIQUE that version 1 put on `receipt_hash`, so the table is rebuilt
 * (same columns and rows) with a plain index on it. Rows from before are plans of one: plan_id = their id,
 * plan_seq 1, so an approved transaction of v4 stays executable with its own receipt.
 */
export const migration005: Migration = {
  version: 5,
  name: "plans",
  sql: `
CREATE TABLE transactions_v5 (
  id TEXT PRIMARY KEY,
  action_name TEXT NOT NULL,
  host TEXT NOT NULL DEFAULT 'local',
  params TEXT NOT NULL,
  risk_level TEXT NOT NULL,
  preview TEXT NOT NULL,
  preview_hash TEXT NOT NULL,
  preview_salt TEXT,
  state TEXT NOT NULL,
  actor TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  plan_expires_at INTEGER NOT NULL,
  approved_at INTEGER,
  approved_by TEXT,
  receipt_hash TEXT,
  receipt_expires_at INTEGER,
  receipt_consumed_at INTEGER,
  result TEXT,
  error TEXT,
  planner TEXT,
  intent TEXT,
  separation TEXT,
  plan_id TEXT,
  plan_seq INTEGER
);
INSERT INTO transactions_v5 (${COLUMNS}, plan_id, plan_seq) SELECT ${COLUMNS}, id, 1 FROM transactions;
DROP TABLE transactions;
ALTER TABLE transactions_v5 RENAME TO transactions;
CREATE INDEX transactions_created ON transactions (created_at);
CREATE INDEX transactions_plan ON transactions (plan_id, plan_seq);
CREATE INDEX transactions_receipt ON transactions (receipt_hash);
`,
};
