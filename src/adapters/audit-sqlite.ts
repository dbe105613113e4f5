import { join } from "node:path";
import Database from "better-sqlite3";
import { openPrivateDatabase, tightenDatabaseFiles } from "./private-files.ts";
import { canonicalJson } from "../core/audit/canonical.ts";
import { KIND_GENESIS, KIND_KEY_ROTATION, rotationProofInput } from "../core/audit/entry.ts";
import type { AuditEntry, Checkpoint } from "../core/audit/entry.ts";
import { parseRotation } from "../core/audit/verify.ts";
import type { VerifyResult, Witness } from "../core/audit/verify.ts";
import { judgeAnchoring } from "../core/audit/anchor.ts";
import { HostgateError } from "../core/errors.ts";
import type { AuditAppend, AuditQuery, AuditStore } from "../ports/audit-store.ts";
import type { Signer } from "../ports/signer.ts";
import { ChainWriter } from "./audit-chain-writer.ts";
import { checkpointCopyPath, readCheckpointCopy } from "./audit-checkpoint-copy.ts";
import type { CheckpointCopyTarget } from "./audit-checkpoint-copy.ts";
import { Checkpoints } from "./audit-checkpoints.ts";
import { AuditRedaction, type PreparedEntry } from "./audit-redaction.ts";
import { unavailable } from "./audit-sqlite-errors.ts";
import { AUDIT_SCHEMA, ENTRY_COLUMNS, openReadOnlyAnywhere } from "./audit-sqlite-schema.ts";
import { verifyAuditDb } from "./audit-verify.ts";
import { readPublicKeyDir } from "./signer-ed25519.ts";

/*
 * The audit store, split by responsibility: this file is the database (open, read-only fallback, query,
 * verify, close) and wires the parts: audit-redaction.ts (checks and redacts an append before anything is
 * signed), audit-chain-writer.ts (hash, sign, group commit), audit-checkpoints.ts (signed checkpoints and
 * their copies). Which signer and which pinned keys a daemon uses is chosen in daemon/audit-store.ts.
 */

/** Options of {@link SqliteAuditStore.open}. Defaults in brackets. */
export interface SqliteAuditStoreOptions {
  /** Database file, e.g. `<stateDir>/audit.db`. Its directory is created if missing. */
  dbPath: string;
  signer: Signer;
  /** Write a checkpoint after this many new entries [1000]. */
  checkpointEvery?: number;
  /** Write a checkpoint this often (ms) while the head has moved since the last one [30,000]. 0 disables the timer. */
  checkpointIdleMs?: number;
  /** Second place for checkpoint copies [none]. syslog/journald are refused (not implemented). */
  checkpointCopy?: CheckpointCopyTarget | null;
  /** Extra secret patterns (configuration), redacted in payloads and actors before signing. */
  secretPatterns?: readonly (RegExp | string)[];
  /** Group commit: flush when this many entries are queued [512]… */
  groupCommitMaxEntries?: number;
  /** …or this many ms after the first queued entry [2]. */
  groupCommitDelayMs?: number;
  /** Refuse to grow the database beyond this many bytes (SQLITE_FULL → audit_unavailable) [no cap]. */
  maxDbBytes?: number;
  /** Milliseconds since the epoch [Date.now]. */
  clock?: () => number;
  /** Worker threads for verify [available cores]. */
  verifyWorkers?: number;
  /** Called with problems that do not fail an append (a checkpoint copy that could not be written, read-only fallback). */
  onWarning?: (message: string) => void;
  /**
   * Keys pinned outside the state directory (adapters/audit-pin.ts): `verify` trusts these instead of the
   * signer's keys from the state directory. Absent: verification reports at most `unanchored` (key_not_pinned).
   */
  pinnedKeys?: ReadonlyMap<string, string> | null;
  /** Whether the checkpoint copy lies outside the state directory, so its checkpoints anchor the chain [false]. */
  checkpointCopyOutside?: boolean;
}

/** Options of {@link SqliteAuditStore.openReadOnly}. */
export interface ReadOnlyAuditStoreOptions {
  dbPath: string;
  /** Directory of `<key_id>.pub` files used as trusted keys by verify (e.g. `<stateDir>/audit-keys`). */
  keyDir: string;
  checkpointCopy?: CheckpointCopyTarget | null;
  verifyWorkers?: number;
}

/**
 * The audit chain in SQLite (WAL). One writer per database. Appends are hashed and signed immediately (so seq
 * order is call order) and written in group-commit transactions; durable appends commit with
 * `synchronous=FULL` (fsync) before resolving. A failed commit rolls the in-memory head back to the last
 * committed entry and fails every entry of that batch with `audit_unavailable`.
 */
export class SqliteAuditStore implements AuditStore {
  private readonly db: Database.Database;
  private readonly redaction: AuditRedaction;
  private readonly writer: ChainWriter;
  private readonly checkpoints: Checkpoints;
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private cleanup: () => void = () => undefined;
  private pinned: ReadonlyMap<string, string> | null;

  private constructor(
    private readonly opts: SqliteAuditStoreOptions,
    db: Database.Database,
    /** Why the store is read-only, or null when it is writable. */
    readonly readOnlyReason: string | null = null,
    private readonly trustedKeys: () => Map<string, string> = () => opts.signer.knownPublicKeys(),
  ) {
    this.db = db;
    const clock = opts.clock ?? Date.now;
    this.pinned = opts.pinnedKeys ?? null;
    this.redaction = new AuditRedaction(opts.secretPatterns ?? []);
    if (opts.checkpointCopy) checkpointCopyPath(opts.checkpointCopy);
    this.checkpoints = new Checkpoints(db, { signer: opts.signer, clock, checkpointCopy: opts.checkpointCopy ?? null, ...(opts.onWarning ? { onWarning: opts.onWarning } : {}) });
    this.writer = new ChainWriter(db, {
      signer: opts.signer, clock,
      ...(opts.groupCommitMaxEntries !== undefined ? { groupCommitMaxEntries: opts.groupCommitMaxEntries } : {}),
      ...(opts.groupCommitDelayMs !== undefined ? { groupCommitDelayMs: opts.groupCommitDelayMs } : {}),
      onCommitted: (committed) => {
        if (this.checkpoints.behind(committed) >= (opts.checkpointEvery ?? 1000)) this.tryCheckpoint();
      },
    }, readOnlyReason !== null);
  }

  /**
   * Opens (creating if needed) the store at `opts.dbPath`. On an empty store writes the genesis entry (durable).
   * Throws `audit_unavailable` if the database cannot be opened for writing, `permission_denied` when the
   * chain's signing key is not the signer's key (restore the key file, or move the database aside).
   */
  static open(opts: SqliteAuditStoreOptions): SqliteAuditStore {
    let db: Database.Database;
    try {
      db = openPrivateDatabase(opts.dbPath);
      db.pragma("journal_mode = WAL");
      tightenDatabaseFiles(opts.dbPath);
      db.pragma("synchronous = NORMAL");
      db.exec(AUDIT_SCHEMA);
      if (opts.maxDbBytes !== undefined) {
        const pageSize = db.pragma("page_size", { simple: true }) as number;
        db.pragma(`max_page_count = ${Math.max(1, Math.floor(opts.maxDbBytes / pageSize))}`);
      }
    } catch (err) {
      throw unavailable(`cannot open the audit database ${opts.dbPath}`, err);
    }
    const store = new SqliteAuditStore(opts, db);
    try {
      store.start();
    } catch (err) {
      db.close();
      throw err;
    }
    return store;
  }

  /**
   * Opens an existing store read-only: `query`, `latestCheckpoint` and `verify` work; `append`, `checkpointNow` and
   * `rotateKey` fail with `audit_unavailable`. For a store on a read-only or failing disk, so history and
   * verification stay available while every mutation is refused. Throws `audit_unavailable` if it cannot be read.
   */
  static openReadOnly(opts: ReadOnlyAuditStoreOptions, reason = "opened read-only"): SqliteAuditStore {
    let opened: ReturnType<typeof openReadOnlyAnywhere>;
    try {
      opened = openReadOnlyAnywhere(opts.dbPath);
      opened.db.prepare("SELECT 1 FROM audit_entries LIMIT 1").all();
    } catch (err) {
      throw unavailable(`cannot read the audit database ${opts.dbPath}`, err);
    }
    const signer: Signer = {
      keyId: "",
      publicKey: "",
      sign: () => {
        throw new HostgateError("audit_unavailable", `the audit store is read-only (${reason})`);
      },
      knownPublicKeys: () => readPublicKeyDir(opts.keyDir),
      prepareRotation: () => {
        throw new HostgateError("audit_unavailable", `the audit store is read-only (${reason})`);
      },
      commitRotation: () => undefined,
      abortRotation: () => undefined,
      recover: () => undefined,
    };
    const store = new SqliteAuditStore({ dbPath: opened.path, signer, checkpointCopy: opts.checkpointCopy, verifyWorkers: opts.verifyWorkers, checkpointIdleMs: 0 }, opened.db, reason);
    store.cleanup = opened.cleanup;
    return store;
  }

  private start(): void {
    const expectedKey = this.chainActiveKey();
    this.opts.signer.recover(expectedKey);
    if (expectedKey !== null && expectedKey !== this.opts.signer.keyId) {
      throw new HostgateError("permission_denied", `the audit chain is signed by key ${expectedKey} but the signing key on disk is ${this.opts.signer.keyId}`, {
        hint: "Restore the audit key that matches this database, or move the database aside to start a new chain.",
      });
    }
    if (this.writer.committed.seq === 0) {
      const signer = this.opts.signer;
      this.writer.enqueue({ kind: KIND_GENESIS, actor: "hostgate", payloadText: canonicalJson({ format: "hostgate-audit-v1", key_id: signer.keyId, public_key: signer.publicKey }) }).catch(
        () => undefined,
      );
      const failure = this.writer.flush(true);
      if (failure !== null) throw failure;
      this.checkpoints.genesisHash = this.writer.committed.hash;
    }
    const idle = this.opts.checkpointIdleMs ?? 30_000;
    if (idle > 0) {
      this.idleTimer = setInterval(() => {
        if (this.checkpoints.behind(this.writer.committed) > 0) this.tryCheckpoint();
      }, idle);
      this.idleTimer.unref();
    }
  }

  /** The key the chain expects next: the last rotation's new key, else the genesis key; null for an empty chain. */
  private chainActiveKey(): string | null {
    const rot = this.db.prepare(`SELECT payload FROM audit_entries WHERE kind = ? ORDER BY pos DESC LIMIT 1`).get(KIND_KEY_ROTATION) as { payload: string } | undefined;
    if (rot !== undefined) return parseRotation(rot.payload)?.new_key_id ?? null;
    return (this.db.prepare("SELECT key_id FROM audit_entries ORDER BY pos LIMIT 1").get() as { key_id: string } | undefined)?.key_id ?? null;
  }

  append(input: AuditAppend, opts: { durable?: boolean } = {}): Promise<{ seq: number; hash: string }> {
    let entry: PreparedEntry;
    try {
      entry = this.redaction.prepare(input);
      if (this.readOnlyReason !== null) {
        throw new HostgateError("audit_unavailable", `the audit store is read-only (${this.readOnlyReason}); the action is refused because it cannot be audited`, {
          hint: "Make the state directory writable (free space, remount read-write), then restart the daemon.",
        });
      }
      if (this.closed) throw new HostgateError("audit_unavailable", "the audit store is closed", { hint: "Reopen the store; the action was not recorded." });
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return this.writer.commit(entry, opts.durable === true);
  }

  private tryCheckpoint(): void {
    this.checkpoints.tryWrite(() => this.checkpointNow());
  }

  checkpointNow(): Checkpoint {
    if (this.readOnlyReason !== null) throw new HostgateError("audit_unavailable", `the audit store is read-only (${this.readOnlyReason}); no checkpoint written`);
    this.writer.flush(false);
    return this.checkpoints.write(this.writer.committed);
  }

  /** Sets the keys pinned outside the state directory, which `verify` then trusts (see audit-pin.ts). */
  setPinnedKeys(keys: ReadonlyMap<string, string> | null): void {
    this.pinned = keys;
  }

  latestCheckpoint(): Checkpoint | null {
    return this.checkpoints.latest();
  }

  query(filter: AuditQuery = {}): AuditEntry[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    const add = (sql: string, v: string | number | undefined): void => {
      if (v === undefined) return;
      where.push(sql);
      args.push(v);
    };
    add("kind = ?", filter.kind);
    add("actor = ?", filter.actor);
    add("ts >= ?", filter.since_ts);
    add("seq >= ?", filter.since_seq);
    add("seq <= ?", filter.until_seq);
    const requested = Number.isFinite(filter.limit) ? Math.trunc(filter.limit!) : 100;
    const limit = Math.min(Math.max(1, requested), 10_000);
    const order = filter.order === "desc" ? "DESC" : "ASC";
    const sql = `SELECT ${ENTRY_COLUMNS} FROM audit_entries ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq ${order} LIMIT ${limit}`;
    try {
      return this.db.prepare(sql).all(...args) as AuditEntry[];
    } catch (err) {
      throw new HostgateError("unavailable", `cannot read the audit log: ${(err as Error).message}`, { cause: err });
    }
  }

  async verify(opts: { since_seq?: number; signatures?: boolean; witnesses?: readonly Witness[] } = {}): Promise<VerifyResult> {
    this.writer.flush(false);
    // The head is copied to the second place now, so the answer covers it (a later cut of it is then detected).
    if (this.opts.checkpointCopy && this.opts.checkpointCopyOutside === true && this.readOnlyReason === null) this.tryCheckpoint();
    let extra: Checkpoint[] = [];
    if (this.opts.checkpointCopy) {
      try {
        extra = readCheckpointCopy(checkpointCopyPath(this.opts.checkpointCopy), this.checkpoints.genesisHash);
      } catch (err) {
        return { status: "cannot_verify", why: "unreadable_store", detail: (err as Error).message };
      }
    }
    const pinned = this.pinned;
    const result = await verifyAuditDb(this.opts.dbPath, {
      trusted: pinned ?? this.trustedKeys(),
      since_seq: opts.since_seq,
      signatures: opts.signatures,
      workers: this.opts.verifyWorkers,
      extra_checkpoints: extra,
      witnesses: opts.witnesses,
    });
    return judgeAnchoring(result, {
      key_source: pinned !== null ? "pinned" : "state_dir",
      outside_checkpoints: this.opts.checkpointCopyOutside === true ? extra : [],
      witnesses: opts.witnesses ?? [],
    });
  }

  async rotateKey(): Promise<{ old_key_id: string; new_key_id: string; seq: number }> {
    const signer = this.opts.signer;
    const r = signer.prepareRotation(rotationProofInput);
    try {
      const { seq } = await this.writer.commit({ kind: KIND_KEY_ROTATION, actor: "hostgate", payloadText: canonicalJson({ ...r }) }, true);
      signer.commitRotation();
      this.checkpointNow();
      return { old_key_id: r.old_key_id, new_key_id: r.new_key_id, seq };
    } catch (err) {
      signer.abortRotation();
      throw err;
    }
  }

  close(): void {
    if (this.closed) return;
    if (this.idleTimer !== null) clearInterval(this.idleTimer);
    try {
      this.writer.flush(false);
      if (this.readOnlyReason === null && this.checkpoints.behind(this.writer.committed) > 0) this.tryCheckpoint();
    } finally {
      this.closed = true;
      this.db.close();
      this.cleanup();
    }
  }
}

/** Where the daemon keeps the audit database and keys: `<stateDir>/audit.db`, `<stateDir>/audit-keys/`. */
export function auditPaths(stateDir: string): { dbPath: string; keyDir: string } {
  return { dbPath: join(stateDir, "audit.db"), keyDir: join(stateDir, "audit-keys") };
}
