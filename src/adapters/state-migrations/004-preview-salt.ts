import type { Migration } from "../sqlite-migrate.ts";

/**
 * Version 4 (issue 12, red team): a random salt per transaction, hashed into its preview_hash, so the hash the
 * model is given cannot be recomputed offline from guessed host state (a WriteFile plan's preview holds the
 * current file's hash and diff). Rows from before read as null: their hash was computed without a salt.
 */
export const migration004: Migration = {
  version: 4,
  name: "preview salt",
  sql: `ALTER TABLE transactions ADD COLUMN preview_salt TEXT;`,
};
