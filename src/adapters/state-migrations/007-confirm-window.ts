import type { Migration } from "../sqlite-migrate.ts";

/**
 * Version 7 (issue 24): confirm-or-auto-revert. A step whose action reverts unless confirmed keeps the prior state
 * its action captured right before apply (`revert_prior`, JSON; null for every other step), the end of its
 * confirm window (`confirm_deadline`, ms since the epoch) and who confirmed it and when. New states
 * `awaiting_confirm`, `reverting` and `reverted` need no schema change (state is TEXT).
 */
export const migration007: Migration = {
  version: 7,
  name: "confirm window",
  sql: `ALTER TABLE transactions ADD COLUMN revert_prior TEXT;
ALTER TABLE transactions ADD COLUMN confirm_deadline INTEGER;
ALTER TABLE transactions ADD COLUMN confirmed_at INTEGER;
ALTER TABLE transactions ADD COLUMN confirmed_by TEXT;
CREATE INDEX transactions_confirm ON transactions (state, confirm_deadline);`,
};
