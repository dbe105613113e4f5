import { actorView } from "../core/caller.ts";
import { HostgateError } from "../core/errors.ts";
import { LOCAL_HOST } from "../core/host-id.ts";
import type { HistoryInput, HistoryResult } from "../ipc/protocol.ts";
import type { DaemonDeps } from "./deps.ts";

/** An entry's payload is canonical JSON text; anything that is not an object reads as empty. */
function parsePayload(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The status an audit entry records for its transaction. */
function statusOf(kind: string, payload: Record<string, unknown>): string | null {
  switch (kind) {
    case "plan.created": return "planned";
    case "approve": return "approved";
    case "approve.refused": return "refused";
    case "reject": return "rejected";
    case "execute.intent": return "executing";
    case "execute.result": return typeof payload.status === "string" ? payload.status : null;
    case "execute.refused": return "refused";
    case "daemon.recovered": return "unknown";
    case "execute.confirmed": return "succeeded";
    case "execute.reverted": return typeof payload.status === "string" ? payload.status : null;
    default: return null;
  }
}

const METHODS = ["terminal", "same-user", "passkey", "test"] as const;

/** Who approved and how, from an `approve` entry (issue 23); null for other entries and older approvals without a method. */
function approvalOf(kind: string, payload: Record<string, unknown>): HistoryResult["entries"][number]["approval"] {
  if (kind !== "approve") return null;
  const method = METHODS.find((m) => m === payload.method);
  if (method === undefined) return null;
  return { method, approver: typeof payload.approver === "string" ? payload.approver : null };
}

/**
 * `history`: reads the audit chain (newest first) and reports each recorded step of each transaction, with
 * optional filters on status, action, host and time (entries written before hosts existed read as `local`). Read-only; no receipt needed. The chain, not the mutable
 * transaction table, is the record: what history shows is what audit_verify proves.
 */
export function history(deps: DaemonDeps, input: HistoryInput): HistoryResult {
  let sinceTs: number | undefined;
  if (input.since !== undefined) {
    sinceTs = Date.parse(input.since);
    if (Number.isNaN(sinceTs)) throw new HostgateError("invalid_params", `since ${JSON.stringify(input.since)} is not a time.`, { hint: "Use ISO 8601, e.g. 2026-11-30T00:00:00Z." });
  }
  const entries: HistoryResult["entries"] = [];
  let untilSeq: number | undefined;
  // Scan newest first in pages until enough entries match the filters.
  for (let page = 0; page < 100 && entries.length < input.limit; page++) {
    const batch = deps.audit().query({ order: "desc", limit: 1000, ...(sinceTs === undefined ? {} : { since_ts: sinceTs }), ...(untilSeq === undefined ? {} : { until_seq: untilSeq }) });
    for (const e of batch) {
      const payload = parsePayload(e.payload);
      const status = statusOf(e.kind, payload);
      const action = typeof payload.action === "string" ? payload.action : null;
      if (input.status !== undefined && status !== input.status) continue;
      const host = typeof payload.host === "string" ? payload.host : LOCAL_HOST;
      if (input.action !== undefined && action !== input.action) continue;
      if (input.host !== undefined && host !== input.host) continue;
      entries.push({
        seq: e.seq, time: new Date(e.ts).toISOString(), kind: e.kind, actor: actorView(e.actor), host,
        transaction_id: typeof payload.transaction_id === "string" ? payload.transaction_id : null,
        action, status, detail: typeof payload.message === "string" ? payload.message : null,
        separation: payload.separation === "separated" || payload.separation === "none" ? payload.separation : null,
        approval: approvalOf(e.kind, payload),
      });
      if (entries.length >= input.limit) break;
    }
    if (batch.length < 1000) break;
    untilSeq = batch[batch.length - 1]!.seq - 1;
  }
  return { entries };
}
