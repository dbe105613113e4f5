import type Database from "better-sqlite3";
import { entryHash, entrySignatureInput } from "../core/audit/entry.ts";
import type { AuditEntry } from "../core/audit/entry.ts";
import type { HostgateError } from "../core/errors.ts";
import type { Signer } from "../ports/signer.ts";
import type { PreparedEntry } from "./audit-redaction.ts";
import { unavailable } from "./audit-sqlite-errors.ts";
import { ENTRY_COLUMNS } from "./audit-sqlite-schema.ts";
import { nodeAuditCrypto } from "./signer-ed25519.ts";

/** A chain position: seq, entry hash, ts (ms). */
export interface Head {
  seq: number;
  hash: string;
  ts: number;
}

interface Pending {
  row: AuditEntry;
  resolve: (v: { seq: number; hash: string }) => void;
  reject: (err: Error) => void;
}

/** Options of {@link ChainWriter}. */
export interface ChainWriterOptions {
  signer: Signer;
  clock: () => number;
  /** Flush when this many entries are queued [512]… */
  groupCommitMaxEntries?: number;
  /** …or this many ms after the first queued entry [2]. */
  groupCommitDelayMs?: number;
  /** Called after each committed batch with the new committed head. */
  onCommitted?: (committed: Head) => void;
}

/**
 * The chain writer: hashes and signs each entry immediately (so seq order is call order) and writes them in
 * group-commit transactions; durable entries commit with `synchronous=FULL` (fsync) before resolving. A failed
 * commit rolls the in-memory head back to the last committed entry and fails every entry of that batch with
 * `audit_unavailable`.
 */
export class ChainWriter {
  private readonly insertMany: (rows: AuditEntry[]) => void;
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  private head: Head;
  private committedHead: Head;
  private syncFull = false;

  constructor(private readonly db: Database.Database, private readonly opts: ChainWriterOptions, readOnly: boolean) {
    const insert = readOnly ? db.prepare("SELECT 1") : db.prepare(`INSERT INTO audit_entries (pos, ${ENTRY_COLUMNS}) VALUES (@seq, @seq, @ts, @kind, @actor, @payload, @prev_hash, @hash, @key_id, @signature)`);
    this.insertMany = db.transaction((rows: AuditEntry[]) => {
      for (const r of rows) insert.run(r);
    });
    const last = db.prepare("SELECT seq, hash, ts FROM audit_entries ORDER BY pos DESC LIMIT 1").get() as Head | undefined;
    this.head = last ?? { seq: 0, hash: "0".repeat(64), ts: 0 };
    this.committedHead = { ...this.head };
  }

  /** The last committed entry (seq 0 before the first). */
  get committed(): Head {
    return this.committedHead;
  }

  /** Queues an entry and schedules (or, when durable, performs) its commit; resolves once it is committed. */
  commit(e: PreparedEntry, durable: boolean): Promise<{ seq: number; hash: string }> {
    const promise = this.enqueue(e);
    if (durable) this.flush(true);
    else if (this.pending.length >= (this.opts.groupCommitMaxEntries ?? 512)) this.flush(false);
    else
      this.timer ??= setTimeout(() => {
        this.flush(false);
      }, this.opts.groupCommitDelayMs ?? 2);
    return promise;
  }

  /** Hashes, signs and queues one entry at the in-memory head. */
  enqueue(e: PreparedEntry): Promise<{ seq: number; hash: string }> {
    const signer = this.opts.signer;
    const body = { seq: this.head.seq + 1, ts: Math.max(this.opts.clock(), this.head.ts), kind: e.kind, actor: e.actor, payload: e.payloadText, prev_hash: this.head.hash, key_id: signer.keyId };
    const hash = entryHash(body, nodeAuditCrypto);
    const row: AuditEntry = { ...body, hash, signature: signer.sign(entrySignatureInput(hash)) };
    this.head = { seq: row.seq, hash, ts: row.ts };
    return new Promise((resolve, reject) => this.pending.push({ row, resolve, reject }));
  }

  /** Commits every queued entry in one transaction; `durable` = fsync before returning. Returns the error it rejected the batch with, if any. */
  flush(durable: boolean): HostgateError | null {
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
      this.head = { ...this.committedHead };
      const error = unavailable(`cannot write ${batch.length} audit entr${batch.length === 1 ? "y" : "ies"}`, err);
      for (const p of batch) p.reject(error);
      return error;
    }
    const last = batch.at(-1)!.row;
    this.committedHead = { seq: last.seq, hash: last.hash, ts: last.ts };
    for (const p of batch) p.resolve({ seq: p.row.seq, hash: p.row.hash });
    this.opts.onCommitted?.(this.committedHead);
    return null;
  }
}
