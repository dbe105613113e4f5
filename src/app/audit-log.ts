import type { AuditStore } from "../ports/audit-store.ts";
import type { JsonValue } from "../core/audit/canonical.ts";

/**
 * Writes one audit entry for a daemon event. `durable` entries (intents to mutate, approvals) are committed
 * with fsync before this resolves; the others join a group commit but are still flushed before it resolves.
 * Throws HostgateError `audit_unavailable` when the entry cannot be written: callers let that refuse the
 * action (fail closed).
 */
export async function audit(store: AuditStore, kind: string, actor: string, payload: Record<string, JsonValue | undefined>, durable = false): Promise<{ seq: number; hash: string }> {
  const clean = Object.fromEntries(Object.entries(payload).filter(([, v]) => v !== undefined)) as Record<string, JsonValue>;
  return store.append({ kind, actor, payload: clean }, { durable });
}

/**
 * Signs a checkpoint at the current head and returns it as `{seq, hash}`, for execute results and receipts:
 * whoever holds it can later prove the chain was not cut below that point. Approvals and executions are rare,
 * so a checkpoint each costs one signature. Falls back to the newest existing checkpoint if signing fails.
 */
export function checkpointRef(store: AuditStore): { seq: number; hash: string } | null {
  let cp;
  try {
    cp = store.checkpointNow();
  } catch {
    cp = store.latestCheckpoint();
  }
  return cp ? { seq: cp.seq, hash: cp.hash } : null;
}
