import { HostgateError } from "../core/errors.ts";
import { formatReceipt, RECEIPT_BYTES } from "../core/transaction/receipt.ts";
import { effectiveState, RECEIPT_TTL_MS, type Transaction } from "../core/transaction/transaction.ts";
import type { ApproveResult, PendingResult, ShowResult } from "../ipc/protocol.ts";
import { audit, checkpointRef } from "./audit-log.ts";
import type { DaemonDeps } from "./deps.ts";
import type { TransactionStore } from "../ports/transaction-store.ts";
import { checkApprover, separationOf } from "../core/approval.ts";
import { actorOf, parseActor, type Caller } from "../core/caller.ts";

function load(deps: DaemonDeps, id: string): Transaction {
  const tx = deps.transactions().get(id);
  if (!tx) throw new HostgateError("unknown_transaction", `No transaction ${id}.`, { hint: "Copy the transaction_id from the plan output; `hostgate pending` lists the planned ones." });
  return tx;
}

/** The shortest prefix of a transaction id a human may type for it (like git's short commit ids). */
export const MIN_ID_PREFIX = 8;

/**
 * The transaction a human means by `typed`: the id itself, or a prefix of at least {@link MIN_ID_PREFIX}
 * characters that starts exactly one transaction id (any state, so a prefix never silently means a different
 * transaction once an older one is closed). Errors: `unknown_transaction` (none matches), `ambiguous_transaction`
 * (several do; `details.matches` lists up to 10), `invalid_params` (a prefix shorter than 8 characters).
 * Only `show` resolves prefixes; `approve` and `reject` take the full id the human was shown.
 */
export function resolveTransactionId(deps: DaemonDeps, typed: string): string {
  const store = deps.transactions();
  if (store.get(typed)) return typed;
  const prefix = typed.trim().toLowerCase();
  const pendingHint = "Run `hostgate pending` to list the planned transactions with their full ids.";
  if (!/^[0-9a-f-]+$/.test(prefix)) throw new HostgateError("unknown_transaction", `No transaction ${typed}.`, { hint: pendingHint });
  if (prefix.length < MIN_ID_PREFIX) {
    throw new HostgateError("invalid_params", `${JSON.stringify(typed)} is too short to name a transaction: give the full id or at least its first ${MIN_ID_PREFIX} characters.`, { hint: pendingHint });
  }
  const matches = store.idsWithPrefix(prefix, 11);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new HostgateError("unknown_transaction", `No transaction id starts with ${prefix}.`, { hint: pendingHint });
  const shown = matches.slice(0, 10);
  throw new HostgateError("ambiguous_transaction", `${prefix} starts ${matches.length > 10 ? "more than 10" : matches.length} transaction ids: ${shown.join(", ")}${matches.length > 10 ? ", …" : ""}. Type more characters of the one you mean.`, {
    hint: pendingHint, details: { matches: shown },
  });
}

/**
 * What `hostgate pending` lists for the human: transactions still planned (not expired by the daemon's clock),
 * newest first, at most `limit` (default 50), each with its risk and one-line summary.
 */
export function pending(deps: DaemonDeps, limit = 50): PendingResult {
  return pendingIn(deps.transactions(), deps.clock.now(), limit);
}

/** {@link pending} over one transaction store at `now` (ms): also how the CLI lists plans when no daemon runs (daemon/pending-offline.ts). */
export function pendingIn(store: TransactionStore, now: number, limit = 50): PendingResult {
  const open = store.list({ state: "planned", limit: 1000 }).filter((tx) => effectiveState(tx, now) === "planned").slice(0, limit);
  return {
    transactions: open.map((tx) => ({
      transaction_id: tx.id, action_name: tx.action_name, host: tx.host, risk_level: tx.risk_level, summary: tx.preview.summary,
      created_at: new Date(tx.created_at).toISOString(), expires_at: new Date(tx.plan_expires_at).toISOString(), actor: tx.actor,
    })),
  };
}

/**
 * What `hostgate approve` shows: the exact preview, risk and current state of one transaction, and the
 * separation an approval by `caller` (the same connection) would get, so the human sees it before confirming.
 * `id` may be a unique prefix ({@link resolveTransactionId}); the result carries the full id.
 */
export function show(deps: DaemonDeps, id: string, caller: Caller): ShowResult {
  const tx = load(deps, resolveTransactionId(deps, id));
  const facts = separationOf(tx.actor, caller);
  const refused = caller.socket !== "in_process" && facts.separation === "none" && deps.approval.same_user === "deny";
  return {
    approval: { separation: facts.separation, facts: facts.why, refused },
    transaction_id: tx.id, action_name: tx.action_name, host: tx.host, params: tx.params, risk_level: tx.risk_level, state: effectiveState(tx, deps.clock.now()),
    preview: tx.preview, preview_hash: tx.preview_hash, created_at: new Date(tx.created_at).toISOString(), actor: tx.actor,
    planned_by: plannedBy(tx),
  };
}

/** Who planned a step, for the approval screen: the front's client name (untrusted) and uid, the planner, the intent. */
function plannedBy(tx: Transaction): ShowResult["planned_by"] {
  const a = parseActor(tx.actor);
  return { client: a?.client ?? null, uid: a?.uid ?? null, planner: tx.planner, intent: tx.intent };
}

/**
 * Approves a planned transaction and mints its receipt (admin socket only). The receipt is random
 * (RECEIPT_BYTES), stored only as its SHA-256, bound to this transaction and its preview_hash, and expires
 * RECEIPT_TTL_MS later by the daemon's clock. The approval is durably audited before the receipt is returned;
 * `expected_preview_hash` (what the human was shown) must still match.
 */
export async function approve(deps: DaemonDeps, id: string, caller: Caller, expectedPreviewHash?: string): Promise<ApproveResult> {
  const approvedBy = actorOf(caller);
  const tx = load(deps, id);
  const now = deps.clock.now();
  const state = effectiveState(tx, now);
  if (state !== "planned") {
    throw new HostgateError("transaction_closed", `Transaction ${id} is ${state}; only a planned transaction can be approved.`, { hint: "Plan the change again to get a new transaction." });
  }
  if (expectedPreviewHash !== undefined && expectedPreviewHash !== tx.preview_hash) {
    throw new HostgateError("plan_changed", "The preview changed after it was shown; nothing was approved.", { hint: "Run hostgate approve again and review the new preview." });
  }
  // The daemon decides who may approve, from kernel facts (core/approval.ts). The daemon's own process (tests,
  // embedding code) is exempt from the checks; it is labelled separation none like any unproven approval.
  const facts = separationOf(tx.actor, caller);
  if (caller.socket !== "in_process") {
    const tty = caller.peer === null ? null : await deps.ttyOf(caller.peer.pid);
    try {
      checkApprover(facts, tty, deps.approval.same_user);
    } catch (err) {
      await audit(deps.audit(), "approve.refused", approvedBy, { transaction_id: id, action: tx.action_name, host: tx.host, separation: facts.separation, tty: tty ?? undefined, message: (err as Error).message }).catch(() => undefined);
      throw err;
    }
  }
  const receipt = formatReceipt(deps.crypto.randomBase64Url(RECEIPT_BYTES));
  const expiresAt = now + RECEIPT_TTL_MS;
  await audit(deps.audit(), "approve", approvedBy, { transaction_id: id, action: tx.action_name, host: tx.host, preview_hash: tx.preview_hash, receipt_expires_at: expiresAt, separation: facts.separation, separation_facts: facts.why }, true);
  if (!deps.transactions().approve(id, deps.crypto.sha256Hex(receipt), approvedBy, now, expiresAt, facts.separation)) {
    throw new HostgateError("transaction_closed", `Transaction ${id} changed state while it was being approved.`, { hint: "Check the history tool and plan again if needed." });
  }
  return { transaction_id: id, receipt, expires_at: new Date(expiresAt).toISOString(), preview_hash: tx.preview_hash, separation: facts.separation, separation_facts: facts.why, checkpoint: checkpointRef(deps.audit()) };
}

/** Rejects a planned transaction (admin socket only); audited before it takes effect. */
export async function reject(deps: DaemonDeps, id: string, caller: Caller): Promise<{ transaction_id: string; state: "rejected" }> {
  const by = actorOf(caller);
  const tx = load(deps, id);
  const state = effectiveState(tx, deps.clock.now());
  if (state !== "planned") throw new HostgateError("transaction_closed", `Transaction ${id} is ${state}; only a planned transaction can be rejected.`);
  await audit(deps.audit(), "reject", by, { transaction_id: id, action: tx.action_name, host: tx.host, preview_hash: tx.preview_hash }, true);
  if (!deps.transactions().reject(id, by, deps.clock.now())) throw new HostgateError("transaction_closed", `Transaction ${id} changed state while it was being rejected.`);
  return { transaction_id: id, state: "rejected" };
}
