import type { Migration } from "../sqlite-migrate.ts";

/**
 * Version 6 is the passkey credential store (issue 23, branch c23a), which lands separately; this placeholder
 * keeps the versions contiguous on branches without it and is replaced by that migration at merge.
 */
export const migration006: Migration = {
  version: 6,
  name: "reserved (passkeys)",
  sql: "SELECT 1;",
};
