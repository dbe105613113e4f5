import type { Migration } from "../sqlite-migrate.ts";

/** Version 2: every transaction names its host; rows from before hosts existed ran on `local`. */
export const migration002: Migration = {
  version: 2,
  name: "transaction host",
  sql: `ALTER TABLE transactions ADD COLUMN host TEXT NOT NULL DEFAULT 'local';`,
};
