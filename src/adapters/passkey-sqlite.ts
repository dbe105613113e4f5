import Database from "better-sqlite3";
import { openPrivateDatabase, tightenDatabaseFiles } from "./private-files.ts";
import { HostgateError } from "../core/errors.ts";
import type { ChallengePurpose, PasskeyRecord, PasskeyStore, StoredChallenge } from "../ports/passkey-store.ts";
import { migrate } from "./sqlite-migrate.ts";
import { migration006 } from "./state-migrations/006-passkeys.ts";
import { STATE_MIGRATIONS } from "./state-migrations/index.ts";

interface Row { credential_id: string; name: string; public_key: string; counter: number; transports: string; created_at: number; last_used_at: number | null; revoked_at: number | null }

const toRecord = (r: Row): PasskeyRecord => ({ ...r, transports: JSON.parse(r.transports) as string[] });

/**
 * Passkeys and challenges in the state database (`state.db`, the transaction store's file; migration 006), on a
 * connection of its own: WAL, `synchronous = FULL`, each change one guarded statement. Used challenges older than
 * a day are deleted as new ones are put.
 */
export class SqlitePasskeyStore implements PasskeyStore {
  private readonly db: Database.Database;

  /** Opens (creating and migrating) `dbPath`; throws HostgateError `unavailable` when it cannot. */
  constructor(dbPath: string) {
    try {
      this.db = openPrivateDatabase(dbPath);
      this.db.pragma("journal_mode = WAL");
      tightenDatabaseFiles(dbPath);
      this.db.pragma("synchronous = FULL");
      this.db.pragma("busy_timeout = 5000");
      migrate(this.db, STATE_MIGRATIONS, dbPath);
      // A database migrated through the placeholder version 6 (builds of main before passkeys landed) has no tables yet.
      if (this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passkeys'").get() === undefined) this.db.exec(migration006.sql);
    } catch (err) {
      if (err instanceof HostgateError) throw err;
      throw new HostgateError("unavailable", `Cannot open the passkey store ${dbPath}: ${(err as Error).message}`, { hint: "Check that the state directory is writable by the daemon user.", cause: err });
    }
  }

  list(): PasskeyRecord[] {
    return (this.db.prepare("SELECT * FROM passkeys WHERE revoked_at IS NULL ORDER BY created_at, credential_id").all() as Row[]).map(toRecord);
  }

  get(credentialId: string): PasskeyRecord | null {
    const row = this.db.prepare("SELECT * FROM passkeys WHERE credential_id = ?").get(credentialId) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  add(r: Omit<PasskeyRecord, "last_used_at" | "revoked_at">): void {
    const done = this.db.prepare("INSERT OR IGNORE INTO passkeys (credential_id, name, public_key, counter, transports, created_at) VALUES (?, ?, ?, ?, ?, ?)")
      .run(r.credential_id, r.name, r.public_key, r.counter, JSON.stringify(r.transports), r.created_at);
    if (done.changes !== 1) throw new HostgateError("invalid_params", `Passkey ${r.credential_id} is already enrolled (or was, and is revoked).`, { hint: "Enroll another authenticator, or create a new passkey on it." });
  }

  revoke(credentialId: string, now: number): boolean {
    return this.db.prepare("UPDATE passkeys SET revoked_at = ? WHERE credential_id = ? AND revoked_at IS NULL").run(now, credentialId).changes === 1;
  }

  recordUse(credentialId: string, counter: number, now: number): boolean {
    return this.db.prepare("UPDATE passkeys SET counter = ?, last_used_at = ? WHERE credential_id = ? AND revoked_at IS NULL AND (counter < ? OR (counter = 0 AND ? = 0))")
      .run(counter, now, credentialId, counter, counter).changes === 1;
  }

  putChallenge(c: StoredChallenge): void {
    this.db.prepare("DELETE FROM passkey_challenges WHERE expires_at < ?").run(c.created_at - 86_400_000);
    this.db.prepare("INSERT INTO passkey_challenges (challenge, purpose, plan_id, nonce, name, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(c.challenge, c.purpose, c.plan_id, c.nonce, c.name, c.created_at, c.expires_at);
  }

  findChallenge(challenge: string, purpose: ChallengePurpose, now: number): StoredChallenge | null {
    const row = this.db.prepare("SELECT challenge, purpose, plan_id, nonce, name, created_at, expires_at FROM passkey_challenges WHERE challenge = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?")
      .get(challenge, purpose, now) as StoredChallenge | undefined;
    return row ?? null;
  }

  useChallenge(challenge: string, now: number): boolean {
    return this.db.prepare("UPDATE passkey_challenges SET used_at = ? WHERE challenge = ? AND used_at IS NULL AND expires_at > ?").run(now, challenge, now).changes === 1;
  }

  close(): void {
    this.db.close();
  }
}
