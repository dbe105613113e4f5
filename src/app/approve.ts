import { HostgateError } from "../core/errors.ts";
import { highestRisk } from "../core/risk-level.ts";
import { formatReceipt, RECEIPT_BYTES } from "../core/transaction/receipt.ts";
import { effectiveState, RECEIPT_TTL_MS, type Transaction } from "../core/transaction/transaction.ts";
import type { ApproveResult, PendingResult, RejectResult, ShowResult } from "../ipc/protocol.ts";
import { audit, checkpointRef } from "./audit-log.ts";
import type { DaemonDeps } from "./deps.ts";
import type { TransactionStore } from "../ports/transaction-store.ts";
import type { RiskLevel } from "../core/catalogue/action.ts";
import { separationOf } from "../core/approval.ts";
import { judgeApproval, passkeyRequirement, passkeySeparation, type ApprovalMethod, type ApproverProof } from "../core/approval-proof.ts";
import { actorOf, actorView, parseActor, type Caller } from "../core/caller.ts";

const PENDING_HINT = "Run `hostgate pending` to list the plans waiting for approval with their full ids.";

/**
 * The steps of the plan `id` names exactly (a plan_id, or any transaction id of the plan), in plan order.
 * Throws `unknown_transaction` when it names none.
 */
export function loadPlan(deps: DaemonDeps, id: string): { planId: string; steps: Transaction[] } {
  const store = deps.transactions();
  const planId = store.planIdOf(id);
  const steps = planId === null ? [] : store.planSteps(planId);
  if (planId === null || steps.length === 0) throw new HostgateError("unknown_transaction", `No plan or transaction ${id}.`, { hint: `Copy the plan_id (or a transaction_id) from the plan output. ${PENDING_HINT}` });
  return { planId, steps };
}

/** The shortest prefix of an id a human may type for it (like git's short commit ids). */
export const MIN_ID_PREFIX = 8;

/**
 * The plan a human means by `typed`: a plan id or transaction id itself, or a prefix of at least
 * {@link MIN_ID_PREFIX} characters of plan ids or transaction ids (any state, so a prefix never silently means
 * a different plan once an older one is closed) that leads to exactly one plan. Errors: `unknown_transaction`
 * (none matches), `ambiguous_transaction` (several plans do; `details.matches` lists up to 10 plan ids),
 * `invalid_params` (a prefix shorter than 8 characters). Only `show` resolves prefixes; `approve` and `reject`
 * take the full id the human was shown.
 */
export function resolvePlanId(deps: DaemonDeps, typed: string): string {
  const store = deps.transactions();
  const exact = store.planIdOf(typed);
  if (exact !== null) return exact;
  const prefix = typed.trim().toLowerCase();
  if (!/^[0-9a-f-]+$/.test(prefix)) throw new HostgateError("unknown_transaction", `No plan or transaction ${typed}.`, { hint: PENDING_HINT });
  if (prefix.length < MIN_ID_PREFIX) {
    throw new HostgateError("invalid_params", `${JSON.stringify(typed)} is too short to name a plan: give the full id or at least its first ${MIN_ID_PREFIX} characters.`, { hint: PENDING_HINT });
  }
  const matches = store.planIdsWithPrefix(prefix, 11);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new HostgateError("unknown_transaction", `No plan or transaction id starts with ${prefix}.`, { hint: PENDING_HINT });
  const shown = matches.slice(0, 10);
  throw new HostgateError("ambiguous_transaction", `${prefix} starts the ids of ${matches.length > 10 ? "more than 10" : matches.length} plans: ${shown.join(", ")}${matches.length > 10 ? ", …" : ""}. Type more characters of the one you mean.`, {
    hint: PENDING_HINT, details: { matches: shown },
  });
}

/**
 * What `hostgate pending` lists for the human: plans with a step still planned (not expired by the daemon's
 * clock), newest first, at most `limit` (default 50), each with its highest risk and its steps in order.
 */
export function pending(deps: DaemonDeps, limit = 50): PendingResult {
  return pendingIn(deps.transactions(), deps.clock.now(), limit, deps.approval.passkey_required_from);
}

/**
 * {@link pending} over one transaction store at `now` (ms): also how the CLI lists plans when no daemon runs
 * (daemon/pending-offline.ts). `passkeyFrom`: config `approval.passkey_required_from` (null: never), for each
 * plan's `passkey_required`.
 */
export function pendingIn(store: TransactionStore, now: number, limit = 50, passkeyFrom: RiskLevel | null = null): PendingResult {
  const open = store.list({ state: "planned", limit: 1000 }).filter((tx) => effectiveState(tx, now) === "planned");
  const byPlan = new Map<string, Transaction[]>();
  for (const tx of open) byPlan.set(tx.plan_id, [...(byPlan.get(tx.plan_id) ?? []), tx]);
  const plans = [...byPlan.values()].slice(0, limit).map((txs) => {
    const steps = [...txs].sort((a, b) => a.plan_seq - b.plan_seq);
    const first = steps[0]!;
    const hosts = [...new Set(steps.map((t) => t.host))];
    return {
      plan_id: first.plan_id, risk_level: highestRisk(steps.map((t) => t.risk_level)), host: hosts.length === 1 ? hosts[0]! : `${hosts.length} hosts`,
      created_at: new Date(first.created_at).toISOString(), expires_at: new Date(Math.min(...steps.map((t) => t.plan_expires_at))).toISOString(), actor: first.actor,
      steps: steps.map((t) => ({ transaction_id: t.id, action_name: t.action_name, host: t.host, risk_level: t.risk_level, summary: t.preview.summary })),
      passkey_required: passkeyRequirement(steps.map((t) => ({ id: t.id, risk_level: t.risk_level, intended: t.preview.intended })), passkeyFrom),
    };
  });
  return { plans };
}

/**
 * What `hostgate approve` shows: every step of one plan with its exact preview, preview_hash, risk and current
 * state; the plan's highest risk; who planned it; and the separation an approval by `caller` (the same
 * connection) would get, so the human sees it before confirming. `id` may be a plan id, a transaction id of
 * the plan, or a unique prefix of either ({@link resolvePlanId}); the result carries the full plan id.
 */
export function show(deps: DaemonDeps, id: string, caller: Caller): ShowResult {
  const { planId, steps } = loadPlan(deps, resolvePlanId(deps, id));
  const first = steps[0]!;
  const facts = separationOf(first.actor, caller);
  const refused = caller.test_proof === undefined && facts.separation === "none" && deps.approval.same_user === "deny";
  const now = deps.clock.now();
  const how = steps.some((tx) => tx.approved_at !== null) ? approvalEntryOf(deps, planId) : null;
  return {
    plan_id: planId,
    risk_level: highestRisk(steps.map((t) => t.risk_level)),
    steps: steps.map((tx) => ({
      transaction_id: tx.id, seq: tx.plan_seq, action_name: tx.action_name, host: tx.host, params: tx.params, risk_level: tx.risk_level,
      state: effectiveState(tx, now), preview: tx.preview, preview_hash: tx.preview_hash, expires_at: new Date(tx.plan_expires_at).toISOString(),
      approval: tx.approved_at === null ? null : {
        approved_at: new Date(tx.approved_at).toISOString(), approved_by: actorView(tx.approved_by ?? ""), separation: tx.separation, method: how?.method ?? null, approver: how?.approver ?? null,
      },
      outcome: !RAN.includes(tx.state) ? null : {
        error: tx.error, confirm_deadline: iso(tx.confirm_deadline), confirmed_at: iso(tx.confirmed_at), confirmed_by: tx.confirmed_by === null ? null : actorView(tx.confirmed_by),
      },
    })),
    created_at: new Date(first.created_at).toISOString(), actor: first.actor,
    planned_by: plannedBy(first),
    approval: { separation: facts.separation, facts: facts.why, refused, passkey_required: passkeyNeed(deps, steps) },
  };
}

/** States in which a step has run (or is running): show reports its outcome. */
const RAN: readonly string[] = ["executing", "awaiting_confirm", "reverting", "succeeded", "failed", "unknown", "reverted"];

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** How plan `planId` was approved, from its newest `approve` audit entry (the chain is the record); null when there is none. */
function approvalEntryOf(deps: DaemonDeps, planId: string): { method: ApprovalMethod | null; approver: string | null } | null {
  for (const e of deps.audit().query({ kind: "approve", order: "desc", limit: 10_000 })) {
    let p: { plan_id?: unknown; method?: unknown; approver?: unknown };
    try {
      p = JSON.parse(e.payload) as typeof p;
    } catch {
      continue;
    }
    if (p.plan_id !== planId) continue;
    const method = (["terminal", "same-user", "passkey", "test"] as const).find((m) => m === p.method) ?? null;
    return { method, approver: typeof p.approver === "string" ? p.approver : null };
  }
  return null;
}

/** Why the plan's receipt needs a passkey approval (core/approval-proof.ts passkeyRequirement), or null. */
export function passkeyNeed(deps: DaemonDeps, steps: readonly Transaction[]): string | null {
  return passkeyRequirement(steps.map((tx) => ({ id: tx.id, risk_level: tx.risk_level, intended: tx.preview.intended })), deps.approval.passkey_required_from);
}

/** Who planned a plan, for the approval screen: the front's client name (untrusted) and uid, the planner, the intent. */
function plannedBy(tx: Transaction): ShowResult["planned_by"] {
  const a = parseActor(tx.actor);
  return { client: a?.client ?? null, uid: a?.uid ?? null, planner: tx.planner, intent: tx.intent };
}

/** Refuses unless every step is planned now, naming the first that is not and what to do. */
export function assertAllPlanned(planId: string, steps: readonly Transaction[], now: number, verb: "approved" | "rejected"): void {
  const closed = steps.find((tx) => effectiveState(tx, now) !== "planned");
  if (!closed) return;
  const state = effectiveState(closed, now);
  throw new HostgateError("transaction_closed", `Step ${closed.plan_seq} of plan ${planId} (transaction ${closed.id}, ${closed.action_name}) is ${state}; only a plan whose steps are all planned can be ${verb}.`, {
    hint: "Ask the assistant to plan the change again to get a new plan.", details: { plan_id: planId, transaction_id: closed.id, state },
  });
}

/**
 * Approves every step of a plan at once and mints its one receipt (admin socket only; issue 22), for the caller
 * of a socket connection: its approver proof is the kernel's facts (a `terminal` proof: uid from SO_PEERCRED,
 * the controlling terminal read by the daemon), or the test proof a test's in-process caller carries
 * (core/approval-proof.ts). There is no exemption for the daemon's own process: an in-process caller without a
 * test proof has no terminal and is refused. See {@link approveWithProof} for the rest.
 */
export async function approve(deps: DaemonDeps, id: string, caller: Caller, shown?: readonly { transaction_id: string; preview_hash: string }[]): Promise<ApproveResult> {
  let proof: ApproverProof;
  if (caller.test_proof !== undefined) proof = caller.test_proof;
  else proof = { kind: "terminal", uid: caller.peer?.uid ?? null, tty: caller.peer === null ? null : await deps.ttyOf(caller.peer.pid) };
  return approveWithProof(deps, id, caller, shown, proof);
}

/**
 * Approves every step of a plan with one approver proof, judged by core/approval-proof.ts (the one place): the
 * only path that mints a receipt, for terminal and passkey approvals alike. `id` is the plan id or any
 * transaction id of the plan (full ids only). `shown`: the (transaction_id, preview_hash) list the approver was
 * shown, in plan order; the approval binds exactly it (`plan_changed` when a step was added, removed, reordered or
 * its hash differs). Every step must be `planned` (`transaction_closed` names the first that is not). Refusals
 * (`approval_refused`, `passkey_required`) are audited `approve.refused`. The receipt is random (RECEIPT_BYTES),
 * stored only as its SHA-256 on every step, and expires RECEIPT_TTL_MS later by the daemon's clock. One `approve`
 * audit entry listing every step and its preview_hash, the method, and for a passkey the assertion and the
 * approver's name (docs/audit-format.md) is durable before the steps move; they move planned → approved all
 * together in one SQLite transaction, or none do.
 */
export async function approveWithProof(deps: DaemonDeps, id: string, caller: Caller, shown: readonly { transaction_id: string; preview_hash: string }[] | undefined, proof: ApproverProof): Promise<ApproveResult> {
  const approvedBy = actorOf(caller);
  const { planId, steps } = loadPlan(deps, id);
  const now = deps.clock.now();
  if (shown !== undefined && !sameSteps(steps, shown)) {
    throw new HostgateError("plan_changed", `Plan ${planId} is not the list of steps and preview hashes that was shown (${steps.length} step${steps.length === 1 ? "" : "s"} now, ${shown.length} shown); nothing was approved.`, { hint: `Run hostgate approve ${planId} again and review the plan as it is now.` });
  }
  assertAllPlanned(planId, steps, now, "approved");
  const actors = new Set(steps.map((tx) => tx.actor));
  if (actors.size !== 1) throw new HostgateError("transaction_closed", `Plan ${planId} has steps planned by different callers; it cannot be approved as one.`, { hint: "Plan the change again." });
  // A passkey approval proves what its enrollment's anchor and this daemon give (core/approval-proof.ts), not the console's caller.
  const facts = proof.kind === "passkey" ? passkeySeparation(steps[0]!.actor, proof.anchor, deps.approval.daemon_mode, proof.approver_name) : separationOf(steps[0]!.actor, caller);
  const ids = steps.map((tx) => tx.id);
  let method: ApprovalMethod;
  try {
    method = judgeApproval(proof, facts, { same_user: deps.approval.same_user, passkey_required: passkeyNeed(deps, steps) });
  } catch (err) {
    const tty = proof.kind === "terminal" ? proof.tty ?? undefined : undefined;
    await audit(deps.audit(), "approve.refused", approvedBy, { plan_id: planId, transaction_ids: ids, transaction_id: ids[0]!, action: steps[0]!.action_name, host: steps[0]!.host, separation: facts.separation, proof: proof.kind, tty, message: (err as Error).message }).catch(() => undefined);
    throw err;
  }
  const receipt = formatReceipt(deps.crypto.randomBase64Url(RECEIPT_BYTES));
  const expiresAt = now + RECEIPT_TTL_MS;
  const bound = steps.map((tx) => ({ transaction_id: tx.id, preview_hash: tx.preview_hash }));
  const passkey = proof.kind === "passkey"
    ? { approver: proof.approver_name, passkey: { ...proof.assertion, nonce: proof.nonce, rp_id: proof.rp_id, origin: proof.origin, user_verified: true, anchor_uid: proof.anchor.uid, anchor_seq: proof.anchor.seq, planner_uid: facts.planner_uid, daemon: deps.approval.daemon_mode } }
    : {};
  await audit(deps.audit(), "approve", approvedBy, {
    plan_id: planId, transaction_id: ids[0]!, transaction_ids: ids, action: steps[0]!.action_name, host: steps[0]!.host,
    steps: steps.map((tx) => ({ transaction_id: tx.id, seq: tx.plan_seq, action: tx.action_name, host: tx.host, preview_hash: tx.preview_hash })),
    receipt_expires_at: expiresAt, separation: facts.separation, separation_facts: facts.why, method, ...passkey,
  }, true);
  if (!deps.transactions().approvePlan(planId, bound, deps.crypto.sha256Hex(receipt), approvedBy, now, expiresAt, facts.separation)) {
    throw new HostgateError("transaction_closed", `Plan ${planId} changed state while it was being approved; nothing was approved.`, { hint: "Check `hostgate pending` and the history tool; plan again if needed." });
  }
  return { plan_id: planId, steps: bound, receipt, expires_at: new Date(expiresAt).toISOString(), separation: facts.separation, separation_facts: facts.why, method, checkpoint: checkpointRef(deps.audit()) };
}

/** Whether `shown` is exactly the plan's steps, in order, with their preview hashes. */
function sameSteps(steps: readonly Transaction[], shown: readonly { transaction_id: string; preview_hash: string }[]): boolean {
  return steps.length === shown.length && steps.every((tx, i) => tx.id === shown[i]!.transaction_id && tx.preview_hash === shown[i]!.preview_hash);
}

/**
 * Rejects every planned step of a plan (admin socket only; `id`: the plan id or any transaction id of it, full
 * ids). Refused `transaction_closed` when no step is planned. One `reject` audit entry listing the steps is
 * durable before they move, all in one SQLite transaction.
 */
export async function reject(deps: DaemonDeps, id: string, caller: Caller): Promise<RejectResult> {
  const by = actorOf(caller);
  const { planId, steps } = loadPlan(deps, id);
  const now = deps.clock.now();
  const open = steps.filter((tx) => effectiveState(tx, now) === "planned");
  if (open.length === 0) {
    const states = [...new Set(steps.map((tx) => effectiveState(tx, now)))].join(", ");
    throw new HostgateError("transaction_closed", `Plan ${planId} has no planned step (its steps are ${states}); only planned steps can be rejected.`);
  }
  await audit(deps.audit(), "reject", by, { plan_id: planId, transaction_id: open[0]!.id, transaction_ids: open.map((tx) => tx.id), action: open[0]!.action_name, host: open[0]!.host, preview_hash: open[0]!.preview_hash }, true);
  const rejected = deps.transactions().rejectPlan(planId, by, deps.clock.now());
  if (rejected.length === 0) throw new HostgateError("transaction_closed", `Plan ${planId} changed state while it was being rejected.`);
  return { plan_id: planId, transaction_ids: rejected, state: "rejected" };
}
