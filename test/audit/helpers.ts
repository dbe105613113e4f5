import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import Database from "better-sqlite3";
import { generateKeyPairSync, sign } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { entryHash, entrySignatureInput, checkpointSignatureInput, GENESIS_PREV_HASH, KIND_GENESIS } from "../../src/core/audit/entry.ts";
import type { AuditEntry, Checkpoint } from "../../src/core/audit/entry.ts";
import { canonicalJson } from "../../src/core/audit/canonical.ts";
import { keyIdOfRaw, nodeAuditCrypto, rawPublicKey } from "../../src/adapters/signer-ed25519.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary directory, removed after the file's tests. */
export function tmp(prefix = "hostgate-audit-test-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Copies a closed SQLite database (and its WAL/SHM if present) to `to`. */
export function copyDb(from: string, to: string): void {
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix);
}

/** Opens a database as an attacker would: writable, with the append-only triggers and seq index dropped. */
export function tamper(dbPath: string, fn: (db: Database.Database) => void): void {
  const db = new Database(dbPath);
  for (const t of ["audit_entries_no_update", "audit_entries_no_delete", "audit_checkpoints_no_update", "audit_checkpoints_no_delete"]) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
  db.exec("DROP INDEX IF EXISTS audit_entries_seq");
  fn(db);
  db.close();
}

/** An attacker's key. */
export function attackerKey(): { key: KeyObject; keyId: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = rawPublicKey(publicKey);
  return { key: privateKey, keyId: keyIdOfRaw(raw), publicKey: raw };
}

/** Builds a correctly hashed entry after `prev`, signed with `key`. */
export function forgeEntry(prev: { seq: number; hash: string; ts: number } | null, key: { key: KeyObject; keyId: string; publicKey: string }, kind: string, payload: unknown): AuditEntry {
  const body = {
    seq: prev === null ? 1 : prev.seq + 1,
    ts: prev === null ? 1 : prev.ts,
    kind,
    actor: "attacker",
    payload: canonicalJson(payload),
    prev_hash: prev === null ? GENESIS_PREV_HASH : prev.hash,
    key_id: key.keyId,
  };
  const hash = entryHash(body, nodeAuditCrypto);
  return { ...body, hash, signature: sign(null, entrySignatureInput(hash), key.key).toString("base64url") };
}

/** A genesis entry for `key`. */
export function forgeGenesis(key: { key: KeyObject; keyId: string; publicKey: string }): AuditEntry {
  return forgeEntry(null, key, KIND_GENESIS, { format: "hostgate-audit-v1", key_id: key.keyId, public_key: key.publicKey });
}

/** A checkpoint over `e` signed with `key`. */
export function forgeCheckpoint(e: AuditEntry, key: { key: KeyObject; keyId: string }): Checkpoint {
  const body = { seq: e.seq, hash: e.hash, ts: e.ts, key_id: key.keyId };
  return { ...body, signature: sign(null, checkpointSignatureInput(body), key.key).toString("base64url") };
}

/** Inserts an entry row at storage position `pos`. */
export function insertRow(db: Database.Database, pos: number, e: AuditEntry): void {
  db.prepare("INSERT INTO audit_entries (pos, seq, ts, kind, actor, payload, prev_hash, hash, key_id, signature) VALUES (?,?,?,?,?,?,?,?,?,?)").run(
    pos, e.seq, e.ts, e.kind, e.actor, e.payload, e.prev_hash, e.hash, e.key_id, e.signature,
  );
}

/** Reads all entries in storage order. */
export function allRows(db: Database.Database): AuditEntry[] {
  return db.prepare("SELECT seq, ts, kind, actor, payload, prev_hash, hash, key_id, signature FROM audit_entries ORDER BY pos").all() as AuditEntry[];
}
