import type { Migration } from "../sqlite-migrate.ts";

/**
 * Version 3 (issue 12): who planned a step and how (`planner`: explicit | deterministic | llm, and the
 * original `intent` text), shown at `hostgate approve`; and the approval's `separation` (separated | none),
 * labelled on execute results. Rows from before read as unknown (null).
 */
export const migration003: Migration = {
  version: 3,
  name: "approval facts",
  sql: `ALTER TABLE transactions ADD COLUMN planner TEXT;
ALTER TABLE transactions ADD COLUMN intent TEXT;
ALTER TABLE transactions ADD COLUMN separation TEXT;`,
};
