import type Database from "better-sqlite3";
import { checkpointSignatureInput } from "../core/audit/entry.ts";
import type { Checkpoint } from "../core/audit/entry.ts";
import type { Signer } from "../ports/signer.ts";
import { writeCheckpointCopy } from "./audit-checkpoint-copy.ts";
import type { CheckpointCopyTarget } from "./audit-checkpoint-copy.ts";
import type { Head } from "./audit-chain-writer.ts";
import { unavailable } from "./audit-sqlite-errors.ts";
import { readDbCheckpoints } from "./audit-sqlite-schema.ts";

/** Options of {@link Checkpoints}. */
export interface CheckpointsOptions {
  signer: Signer;
  clock: () => number;
  /** Second place for checkpoint copies [none]. */
  checkpointCopy?: CheckpointCopyTarget | null;
  /** Told when a checkpoint could not be written by {@link Checkpoints.tryWrite}. */
  onWarning?: (message: string) => void;
}

/**
 * Signed checkpoints of the chain head: stored in `audit_checkpoints` and copied to the second place.
 * `write` signs the given committed head (a no-op when the newest checkpoint is already there); `tryWrite`
 * turns a failure into a warning (for the periodic and count-based checkpoints, which must not fail an append).
 */
export class Checkpoints {
  private newest: Checkpoint | null;
  /** Hash of the chain's first entry (names the chain in checkpoint copies). */
  genesisHash: string | null;

  constructor(private readonly db: Database.Database, private readonly opts: CheckpointsOptions) {
    this.newest = readDbCheckpoints(db).at(-1) ?? null;
    this.genesisHash = (db.prepare("SELECT hash FROM audit_entries WHERE seq = 1").get() as { hash: string } | undefined)?.hash ?? null;
  }

  latest(): Checkpoint | null {
    return this.newest;
  }

  /** Entries committed since the newest checkpoint. */
  behind(committed: Head): number {
    return committed.seq - (this.newest?.seq ?? 0);
  }

  /** Signs and stores a checkpoint at `committed` (and copies it); throws `audit_unavailable` when it cannot be stored. */
  write(committed: Head): Checkpoint {
    if (this.newest !== null && this.newest.seq === committed.seq) return this.newest;
    const signer = this.opts.signer;
    const body = { seq: committed.seq, hash: committed.hash, ts: Math.max(this.opts.clock(), committed.ts), key_id: signer.keyId };
    const cp: Checkpoint = { ...body, signature: signer.sign(checkpointSignatureInput(body)) };
    try {
      this.db.prepare("INSERT INTO audit_checkpoints (seq, ts, hash, key_id, signature) VALUES (@seq, @ts, @hash, @key_id, @signature)").run(cp);
    } catch (err) {
      throw unavailable("cannot write the audit checkpoint", err);
    }
    this.newest = cp;
    if (this.opts.checkpointCopy) writeCheckpointCopy(this.opts.checkpointCopy, this.genesisHash ?? "", cp);
    return cp;
  }

  /** Runs `write` (through the caller's own path, e.g. the store's checkpointNow), reporting failures as warnings. */
  tryWrite(write: () => unknown): void {
    try {
      write();
    } catch (err) {
      this.opts.onWarning?.(`audit checkpoint not written: ${(err as Error).message}`);
    }
  }
}
