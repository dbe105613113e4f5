import { parentPort, workerData } from "node:worker_threads";
import type { AuditEntry } from "../core/audit/entry.ts";
import { ChainWalker, checkEntrySelf } from "../core/audit/verify.ts";
import type { Fault } from "../core/audit/verify.ts";
import { ENTRY_COLUMNS, openReadOnly } from "./audit-sqlite-schema.ts";
import { nodeAuditCrypto } from "./signer-ed25519.ts";
import type { RangeResult, SelfCheckJob, WorkerSetup } from "./audit-verify.ts";

/**
 * Worker thread for audit-verify.ts: for one range of storage it runs the per-entry hash and signature checks and
 * walks the range's order and links from its own first entry, then answers a {@link RangeResult}.
 */
type Row = [number, number, number, string, string, string, string, string, string, string];

const setup = workerData as WorkerSetup;
const keys = new Map(setup.keys);
const wanted = new Set(setup.checkpoint_seqs);

function* rows(job: SelfCheckJob): Generator<[AuditEntry, number]> {
  if (job.kind === "rows") {
    for (let i = 0; i < job.entries.length; i++) yield [job.entries[i]!, job.first_pos + i];
    return;
  }
  const db = openReadOnly(job.path);
  try {
    const stmt = db.prepare(`SELECT pos, ${ENTRY_COLUMNS} FROM audit_entries WHERE pos >= ? AND pos <= ? ORDER BY pos`).raw(true);
    for (const r of stmt.iterate(job.from_pos, job.to_pos) as Iterable<Row>) {
      yield [{ seq: r[1], ts: r[2], kind: r[3], actor: r[4], payload: r[5], prev_hash: r[6], hash: r[7], key_id: r[8], signature: r[9] }, r[0]];
    }
  } finally {
    db.close();
  }
}

function run(job: SelfCheckJob): RangeResult {
  let self: Fault | null = null;
  let walker: ChainWalker | null = null;
  let first: RangeResult["first"] = null;
  for (const [e, pos] of rows(job)) {
    if (walker === null) {
      first = { seq: e.seq, prev_hash: e.prev_hash, ts: e.ts, key_id: e.key_id };
      walker = new ChainWalker({ seq: e.seq, prev_hash: e.prev_hash, prev_ts: e.ts, key_id: null }, nodeAuditCrypto, wanted);
    }
    walker.push(e, pos);
    if (self === null) {
      const f = checkEntrySelf(e, keys, nodeAuditCrypto, setup.signatures);
      if (f !== null) self = { ...f, pos };
    }
    if (self !== null && walker.firstFault !== null) break;
  }
  return {
    count: walker?.count ?? 0,
    self,
    first,
    last: walker?.head ?? { seq: 0, hash: "", ts: 0, key_id: null },
    walk_fault: walker?.firstFault ?? null,
    hashes: walker === null ? [] : [...walker.hashesAt],
    error: null,
  };
}

parentPort!.on("message", (job: SelfCheckJob) => {
  try {
    parentPort!.postMessage(run(job));
  } catch (err) {
    parentPort!.postMessage({ error: (err as Error).message });
  }
});
