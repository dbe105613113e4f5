import type { JsonValue } from "../core/audit/canonical.ts";
import type { AuditEntry, Checkpoint } from "../core/audit/entry.ts";
import type { VerifyResult, Witness } from "../core/audit/verify.ts";

/**
 * The signed, append-only audit chain (DESIGN.md: "every mutation, every refused attempt and every approval is an
 * audit entry; if the audit entry cannot be written, the action does not run"). Implemented by
 * adapters/audit-sqlite.ts. Format: docs/audit-format.md.
 */
export interface AuditStore {
  /**
   * Appends one entry. The payload (and actor) are redacted before encoding, hashing and signing. Returns the
   * assigned seq and hash.
   * - `durable: true`: the entry (and any queued ones before it) is committed with fsync before the promise
   *   resolves. Use it for the intent to mutate: await it before the action runs.
   * - otherwise the entry joins a group commit flushed within a few milliseconds; the promise resolves once flushed.
   * Throws HostgateError `audit_unavailable` when the entry cannot be written (disk full, read-only store, I/O
   * error): the caller must refuse the action. Throws `invalid_params` for a bad kind, actor or payload.
   */
  append(input: AuditAppend, opts?: { durable?: boolean }): Promise<{ seq: number; hash: string }>;
  /** Reads entries, oldest first, matching every given filter. Works on a read-only or full store. */
  query(filter?: AuditQuery): AuditEntry[];
  /** The newest checkpoint (seq, head hash, ts, key id, signature), or null before the first one. */
  latestCheckpoint(): Checkpoint | null;
  /** Writes a checkpoint at the current head now (and copies it to the second place); returns it. */
  checkpointNow(): Checkpoint;
  /**
   * Verifies the whole chain, or from `since_seq`; `signatures: false` is the fast hash-only check; `witnesses`
   * are (seq, hash) pairs the chain must reach. Honest (core/audit/anchor.ts): `intact` only when the key is
   * pinned outside the state directory and outside evidence covers the head, else `unanchored`.
   */
  verify(opts?: { since_seq?: number; signatures?: boolean; witnesses?: readonly Witness[] }): Promise<VerifyResult>;
  /** Rotates the signing key: writes a rotation entry signed by both keys, then switches keys. */
  rotateKey(): Promise<{ old_key_id: string; new_key_id: string; seq: number }>;
  /** Flushes queued entries, writes a final checkpoint if the head moved, and closes the database. */
  close(): void;
}

/** What the caller supplies for an entry; seq, ts, hashes and signature are the store's. */
export interface AuditAppend {
  /** Lowercase dotted identifier, e.g. `plan.created`, `execute.intent`, `execute.result`, `approve`, `refused`. */
  kind: string;
  /** Who caused it, e.g. `uid:1000`, `admin:alice`, `daemon`. At most 256 characters. */
  actor: string;
  /** Any JSON value the canonical encoding accepts (integers only, no undefined). */
  payload: JsonValue;
}

/** Filters for {@link AuditStore.query}. Every filter is optional; `limit` defaults to 100 (max 10,000). */
export interface AuditQuery {
  kind?: string;
  actor?: string;
  /** Entries with ts ≥ this (ms since the epoch). */
  since_ts?: number;
  /** Entries with seq ≥ this. */
  since_seq?: number;
  /** Entries with seq ≤ this. */
  until_seq?: number;
  limit?: number;
  /** "asc" (default) oldest first; "desc" newest first (for "the last N"). */
  order?: "asc" | "desc";
}
