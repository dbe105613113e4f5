import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import Database from "better-sqlite3";
import { CanonicalEncodingError, canonicalJson } from "../core/audit/canonical.ts";
import type { JsonValue } from "../core/audit/canonical.ts";
import {
  KIND_GENESIS,
  KIND_KEY_ROTATION,
  KIND_PATTERN,
  MAX_ACTOR_LENGTH,
  checkpointSignatureInput,
  entryHash,
  entrySignatureInput,
  rotationProofInput,
} from "../core/audit/entry.ts";
import type { AuditEntry, Checkpoint } from "../core/audit/entry.ts";
import { parseRotation } from "../core/audit/verify.ts";
import type { VerifyResult, Witness } from "../core/audit/verify.ts";
import { judgeAnchoring } from "../core/audit/anchor.ts";
import { compileExtraPatterns, redactDeep, redactSecrets } from "../core/redact.ts";
import { HostgateError } from "../core/errors.ts";
import { isWithinRoot } from "../core/paths.ts";
import { pinAuditKey, readPin } from "./audit-pin.ts";
import type { AuditAppend, AuditQuery, AuditStore } from "../ports/audit-store.ts";
import type { Signer } from "../ports/signer.ts";
import { checkpointCopyPath, readCheckpointCopy, writeCheckpointCopy } from "./audit-checkpoint-copy.ts";
import type { CheckpointCopyTarget } from "./audit-checkpoint-copy.ts";
import { AUDIT_SCHEMA, ENTRY_COLUMNS, openReadOnlyAnywhere, readDbCheckpoints } from "./audit-sqlite-schema.ts";
import { verifyAuditDb } from "./audit-verify.ts";
import { Ed25519Signer, nodeAuditCrypto, readPublicKeyDir } from "./signer-ed25519.ts";

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

interface Pending {
  row: AuditEntry;
  resolve: (v: { seq: number; hash: string }) => void;
  reject: (err: Error) => void;
}

interface Head {
  seq: number;
  hash: string;
  ts: number;
}

/**
 * The audit chain in SQLite (WAL). One writer per database. Appends are hashed and signed immediately (so seq
 * order is call order) and written in group-commit transactions; durable appends commit with
 * `synchronous=FULL` (fsync) before resolving. A failed commit rolls the in-memory head back to the last
 * committed entry and fails every entry of that batch with `audit_unavailable`.
 */
export class SqliteAuditStore implements AuditStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly insertMany: (rows: AuditEntry[]) => void;
  private readonly extraPatterns: RegExp[];
  private readonly clock: () => number;
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private head: Head;
  private committed: Head;
  private checkpoint: Checkpoint | null;
  private genesisHash: string | null;
  private syncFull = false;
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
    this.clock = opts.clock ?? Date.now;
    this.pinned = opts.pinnedKeys ?? null;
    this.extraPatterns = compileExtraPatterns(opts.secretPatterns ?? []);
    if (opts.checkpointCopy) checkpointCopyPath(opts.checkpointCopy);
    this.insert = readOnlyReason !== null ? db.prepare("SELECT 1") : db.prepare(`INSERT INTO audit_entries (pos, ${ENTRY_COLUMNS}) VALUES (@seq, @seq, @ts, @kind, @actor, @payload, @prev_hash, @hash, @key_id, @signature)`);
    this.insertMany = db.transaction((rows: AuditEntry[]) => {
      for (const r of rows) this.insert.run(r);
    });
    const last = db.prepare("SELECT seq, hash, ts FROM audit_entries ORDER BY pos DESC LIMIT 1").get() as Head | undefined;
    this.head = last ?? { seq: 0, hash: "0".repeat(64), ts: 0 };
    this.committed = { ...this.head };
    const cps = readDbCheckpoints(db);
    this.checkpoint = cps.at(-1) ?? null;
    this.genesisHash = (db.prepare("SELECT hash FROM audit_entries WHERE seq = 1").get() as { hash: string } | undefined)?.hash ?? null;
  }

  /**
   * Opens (creating if needed) the store at `opts.dbPath`. On an empty store writes the genesis entry (durable).
   * Throws `audit_unavailable` if the database cannot be opened for writing, `permission_denied` when the
   * chain's signing key is not the signer's key (restore the key file, or move the database aside).
   */
  static open(opts: SqliteAuditStoreOptions): SqliteAuditStore {
    let db: Database.Database;
    try {
      mkdirSync(dirname(opts.dbPath), { recursive: true });
      db = new Database(opts.dbPath);
      db.pragma("journal_mode = WAL");
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
    if (this.head.seq === 0) {
      const signer = this.opts.signer;
      this.enqueue({ kind: KIND_GENESIS, actor: "hostgate", payloadText: canonicalJson({ format: "hostgate-audit-v1", key_id: signer.keyId, public_key: signer.publicKey }) }).catch(
        () => undefined,
      );
      const failure = this.flush(true);
      if (failure !== null) throw failure;
      this.genesisHash = this.committed.hash;
    }
    const idle = this.opts.checkpointIdleMs ?? 30_000;
    if (idle > 0) {
      this.idleTimer = setInterval(() => {
        if (this.committed.seq > (this.checkpoint?.seq ?? 0)) this.tryCheckpoint();
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
    let payloadText: string;
    try {
      if (typeof input.kind !== "string" || input.kind.length > 64 || !KIND_PATTERN.test(input.kind)) {
        throw new HostgateError("invalid_params", `audit kind ${JSON.stringify(input.kind)} is not a lowercase dotted identifier of at most 64 characters`);
      }
      if (typeof input.actor !== "string" || input.actor.length > MAX_ACTOR_LENGTH) {
        throw new HostgateError("invalid_params", `audit actor must be a string of at most ${MAX_ACTOR_LENGTH} characters`);
      }
      // The one redactor of answers and previews (core/redact.ts), plus the configured patterns.
      payloadText = encodePayload(redactDeep(input.payload, { extra: this.extraPatterns }).value);
      if (this.readOnlyReason !== null) {
        throw new HostgateError("audit_unavailable", `the audit store is read-only (${this.readOnlyReason}); the action is refused because it cannot be audited`, {
          hint: "Make the state directory writable (free space, remount read-write), then restart the daemon.",
        });
      }
      if (this.closed) throw new HostgateError("audit_unavailable", "the audit store is closed", { hint: "Reopen the store; the action was not recorded." });
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return this.commitEntry({ kind: input.kind, actor: redactSecrets(input.actor, { extra: this.extraPatterns }).text, payloadText }, opts.durable === true);
  }

  private commitEntry(e: { kind: string; actor: string; payloadText: string }, durable: boolean): Promise<{ seq: number; hash: string }> {
    const promise = this.enqueue(e);
    if (durable) this.flush(true);
    else if (this.pending.length >= (this.opts.groupCommitMaxEntries ?? 512)) this.flush(false);
    else
      this.timer ??= setTimeout(() => {
        this.flush(false);
      }, this.opts.groupCommitDelayMs ?? 2);
    return promise;
  }

  private enqueue(e: { kind: string; actor: string; payloadText: string }): Promise<{ seq: number; hash: string }> {
    const signer = this.opts.signer;
    const body = { seq: this.head.seq + 1, ts: Math.max(this.clock(), this.head.ts), kind: e.kind, actor: e.actor, payload: e.payloadText, prev_hash: this.head.hash, key_id: signer.keyId };
    const hash = entryHash(body, nodeAuditCrypto);
    const row: AuditEntry = { ...body, hash, signature: signer.sign(entrySignatureInput(hash)) };
    this.head = { seq: row.seq, hash, ts: row.ts };
    return new Promise((resolve, reject) => this.pending.push({ row, resolve, reject }));
  }

  /** Commits every queued entry in one transaction; `durable` = fsync before returning. Returns the error it rejected the batch with, if any. */
  private flush(durable: boolean): HostgateError | null {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pending.length === 0) return null;
    const batch = this.pending;
    this.pending = [];
    try {
      if (durable !== this.syncFull) {
        this.db.pragma(`synchronous = ${durable ? "FULL" : "NORMAL"}`);
        this.syncFull = durable;
      }
      this.insertMany(batch.map((p) => p.row));
    } catch (err) {
      this.head = { ...this.committed };
      const error = unavailable(`cannot write ${batch.length} audit entr${batch.length === 1 ? "y" : "ies"}`, err);
      for (const p of batch) p.reject(error);
      return error;
    }
    const last = batch.at(-1)!.row;
    this.committed = { seq: last.seq, hash: last.hash, ts: last.ts };
    for (const p of batch) p.resolve({ seq: p.row.seq, hash: p.row.hash });
    if (this.committed.seq - (this.checkpoint?.seq ?? 0) >= (this.opts.checkpointEvery ?? 1000)) this.tryCheckpoint();
    return null;
  }

  private tryCheckpoint(): void {
    try {
      this.checkpointNow();
    } catch (err) {
      this.opts.onWarning?.(`audit checkpoint not written: ${(err as Error).message}`);
    }
  }

  checkpointNow(): Checkpoint {
    if (this.readOnlyReason !== null) throw new HostgateError("audit_unavailable", `the audit store is read-only (${this.readOnlyReason}); no checkpoint written`);
    this.flush(false);
    if (this.checkpoint !== null && this.checkpoint.seq === this.committed.seq) return this.checkpoint;
    const signer = this.opts.signer;
    const body = { seq: this.committed.seq, hash: this.committed.hash, ts: Math.max(this.clock(), this.committed.ts), key_id: signer.keyId };
    const cp: Checkpoint = { ...body, signature: signer.sign(checkpointSignatureInput(body)) };
    try {
      this.db.prepare("INSERT INTO audit_checkpoints (seq, ts, hash, key_id, signature) VALUES (@seq, @ts, @hash, @key_id, @signature)").run(cp);
    } catch (err) {
      throw unavailable("cannot write the audit checkpoint", err);
    }
    this.checkpoint = cp;
    if (this.opts.checkpointCopy) writeCheckpointCopy(this.opts.checkpointCopy, this.genesisHash ?? "", cp);
    return cp;
  }

  /** Sets the keys pinned outside the state directory, which `verify` then trusts (see audit-pin.ts). */
  setPinnedKeys(keys: ReadonlyMap<string, string> | null): void {
    this.pinned = keys;
  }

  latestCheckpoint(): Checkpoint | null {
    return this.checkpoint;
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
    this.flush(false);
    // The head is copied to the second place now, so the answer covers it (a later cut of it is then detected).
    if (this.opts.checkpointCopy && this.opts.checkpointCopyOutside === true && this.readOnlyReason === null) this.tryCheckpoint();
    let extra: Checkpoint[] = [];
    if (this.opts.checkpointCopy) {
      try {
        extra = readCheckpointCopy(checkpointCopyPath(this.opts.checkpointCopy), this.genesisHash);
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
      const { seq } = await this.commitEntry({ kind: KIND_KEY_ROTATION, actor: "hostgate", payloadText: canonicalJson({ ...r }) }, true);
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
      this.flush(false);
      if (this.readOnlyReason === null && this.committed.seq > (this.checkpoint?.seq ?? 0)) this.tryCheckpoint();
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

/**
 * The daemon's entry point: opens (creating on first start) the signing key under `<stateDir>/audit-keys/` and the
 * store at `<stateDir>/audit.db`. Other options as in {@link SqliteAuditStoreOptions}. With `readOnlyFallback`
 * (default false), a store that exists but cannot be opened for writing is opened read-only instead (see
 * {@link SqliteAuditStore.openReadOnly}; `readOnlyReason` says why, `onWarning` is told): history and verify keep
 * working, every append is refused.
 */
export function openAuditStore(stateDir: string, opts: Omit<SqliteAuditStoreOptions, "dbPath" | "signer" | "pinnedKeys" | "checkpointCopyOutside"> & { readOnlyFallback?: boolean; configDir?: string } = {}): SqliteAuditStore {
  const { dbPath, keyDir } = auditPaths(stateDir);
  const checkpointCopyOutside = opts.checkpointCopy ? copyIsOutside(checkpointCopyPath(opts.checkpointCopy), stateDir) : false;
  try {
    const signer = Ed25519Signer.open(stateDir);
    const store = SqliteAuditStore.open({ ...opts, dbPath, signer, checkpointCopyOutside });
    if (opts.configDir !== undefined) {
      // Pin the key outside the state directory at first start; refuse a key the pin does not vouch for.
      try {
        const announcements = [...store.query({ kind: KIND_GENESIS, limit: 10 }), ...store.query({ kind: KIND_KEY_ROTATION, limit: 10_000 })];
        store.setPinnedKeys(pinAuditKey({ configDir: opts.configDir, stateDir, signer, announcements, warn: (l) => opts.onWarning?.(l) }));
      } catch (err) {
        store.close();
        throw err;
      }
    }
    return store;
  } catch (err) {
    if (opts.readOnlyFallback !== true || !(err instanceof HostgateError) || err.code !== "audit_unavailable" || !existsSync(dbPath)) throw err;
    opts.onWarning?.(`audit store opened read-only: ${err.message}`);
    const ro = SqliteAuditStore.openReadOnly({ dbPath, keyDir, checkpointCopy: opts.checkpointCopy, verifyWorkers: opts.verifyWorkers }, err.message);
    if (opts.configDir !== undefined) ro.setPinnedKeys(readPin(opts.configDir, stateDir));
    return ro;
  }
}

/** Whether the copy file lies outside the state directory (both resolved where they exist). */
function copyIsOutside(copyFile: string, stateDir: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return !isWithinRoot(join(real(dirname(copyFile)), basename(copyFile)), real(stateDir));
}

function encodePayload(value: JsonValue): string {
  try {
    return canonicalJson(value);
  } catch (err) {
    if (err instanceof CanonicalEncodingError) {
      throw new HostgateError("invalid_params", `audit payload rejected: ${err.message}`, { hint: "Use integers, strings, booleans, null, arrays and plain objects only." });
    }
    throw err;
  }
}

function unavailable(what: string, err: unknown): HostgateError {
  const code = (err as { code?: string }).code ?? "";
  const why =
    code === "SQLITE_FULL" ? "the disk (or the configured size cap) is full"
    : code.startsWith("SQLITE_READONLY") ? "the store is read-only"
    : code.startsWith("SQLITE_IOERR") ? "an I/O error occurred"
    : (err as Error).message;
  return new HostgateError("audit_unavailable", `${what}: ${why}; the action is refused because it cannot be audited`, {
    hint: "Free space or fix the audit store (see `hostgate doctor`), then retry.",
    details: { sqlite_code: code },
    cause: err,
  });
}
