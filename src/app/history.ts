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
 * The steps one audit entry speaks for: an `approve` entry covers every step of its plan (issue 22: one approval,
 * one receipt), so it is reported once per step, each with that step's transaction id, action and host (its
 * `steps` list); any other entry is reported once, as recorded.
 */
function stepsOf(kind: string, payload: Record<string, unknown>): { transaction_id: string | null; action: string | null; host: string }[] {
  const host = typeof payload.host === "string" ? payload.host : LOCAL_HOST;
  const one = [{ transaction_id: typeof payload.transaction_id === "string" ? payload.transaction_id : null, action: typeof payload.action === "string" ? payload.action : null, host }];
  if (kind !== "approve" || !Array.isArray(payload.steps) || payload.steps.length === 0) return one;
  return (payload.steps as Record<string, unknown>[]).map((s) => ({
    transaction_id: typeof s.transaction_id === "string" ? s.transaction_id : null,
    action: typeof s.action === "string" ? s.action : null,
    host: typeof s.host === "string" ? s.host : host,
  }));
}

/**
 * `history`: reads the audit chain (newest first) and reports each recorded step of each transaction, with
 * optional filters on status, action, host and time (entries written before hosts existed read as `local`). A plan's
 * approval is reported on every step of the plan (same seq). Read-only; no receipt needed. The chain, not the mutable
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
      if (input.status !== undefined && status !== input.status) continue;
      for (const step of stepsOf(e.kind, payload)) {
        if (input.action !== undefined && step.action !== input.action) continue;
        if (input.host !== undefined && step.host !== input.host) continue;
        entries.push({
          seq: e.seq, time: new Date(e.ts).toISOString(), kind: e.kind, actor: actorView(e.actor), host: step.host,
          transaction_id: step.transaction_id, action: step.action, status, detail: typeof payload.message === "string" ? payload.message : null,
          separation: payload.separation === "separated" || payload.separation === "none" ? payload.separation : null,
          approval: approvalOf(e.kind, payload),
        });
        if (entries.length >= input.limit) break;
      }
      if (entries.length >= input.limit) break;
    }
    if (batch.length < 1000) break;
    untilSeq = batch[batch.length - 1]!.seq - 1;
  }
  return { entries };
}
