import type { Migration } from "../sqlite-migrate.ts";

/**
 * Version 6 (issue 23): passkeys. `passkeys`: every enrolled WebAuthn credential (id and COSE public key in
 * base64url, the name its owner gave it, signature counter, transports; revoked ones stay, with `revoked_at`, so
 * a revoked id can never be enrolled again). `passkey_challenges`: challenges the daemon handed out, each usable
 * once (`used_at`) before `expires_at`; an approval's row keeps its plan and nonce (the challenge is derived from
 * them and the plan's steps: core/passkey-challenge.ts). Idempotent (IF NOT EXISTS): a database that a build of
 * main migrated through the placeholder version 6 (`SELECT 1`, before this landed) gets these tables from
 * adapters/passkey-sqlite.ts, which runs this SQL again when they are missing.
 */
export const migration006: Migration = {
  version: 6,
  name: "passkeys",
  sql: `
CREATE TABLE IF NOT EXISTS passkeys (
  credential_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  public_key TEXT NOT NULL,
  counter INTEGER NOT NULL DEFAULT 0,
  transports TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
);
CREATE TABLE IF NOT EXISTS passkey_challenges (
  challenge TEXT PRIMARY KEY,
  purpose TEXT NOT NULL,
  plan_id TEXT,
  nonce TEXT,
  name TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX IF NOT EXISTS passkey_challenges_expiry ON passkey_challenges (expires_at);
`,
};
