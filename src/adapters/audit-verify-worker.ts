import { parentPort, workerData } from "node:worker_threads";
import type { AuditEntry } from "../core/audit/entry.ts";
import { checkEntrySelf } from "../core/audit/verify.ts";
import type { Fault } from "../core/audit/verify.ts";
import { ENTRY_COLUMNS, openReadOnly } from "./audit-sqlite-schema.ts";
import { nodeAuditCrypto } from "./signer-ed25519.ts";
import type { SelfCheckJob, WorkerSetup } from "./audit-verify.ts";

/**
 * Worker thread for {@link ../adapters/audit-verify.ts}: runs the per-entry hash and signature checks for the
 * jobs it is sent and answers `{ fault, count }` (the first fault by storage position, or null).
 */
type Row = [number, number, number, string, string, string, string, string, string, string];

const setup = workerData as WorkerSetup;
const keys = new Map(setup.keys);

parentPort!.on("message", (job: SelfCheckJob) => {
  let fault: Fault | null = null;
  let count = 0;
  try {
    const check = (e: AuditEntry, pos: number): boolean => {
      count++;
      const f = checkEntrySelf(e, keys, nodeAuditCrypto, setup.signatures);
      if (f !== null) fault = { ...f, pos };
      return f !== null;
    };
    if (job.kind === "db") {
      const db = openReadOnly(job.path);
      try {
        const stmt = db.prepare(`SELECT pos, ${ENTRY_COLUMNS} FROM audit_entries WHERE pos >= ? AND pos <= ? ORDER BY pos`).raw(true);
        for (const r of stmt.iterate(job.from_pos, job.to_pos) as Iterable<Row>) {
          const e: AuditEntry = { seq: r[1], ts: r[2], kind: r[3], actor: r[4], payload: r[5], prev_hash: r[6], hash: r[7], key_id: r[8], signature: r[9] };
          if (check(e, r[0])) break;
        }
      } finally {
        db.close();
      }
    } else {
      for (let i = 0; i < job.entries.length; i++) if (check(job.entries[i]!, job.first_pos + i)) break;
    }
    parentPort!.postMessage({ fault, count, error: null });
  } catch (err) {
    parentPort!.postMessage({ fault: null, count, error: (err as Error).message });
  }
});
