import { canonicalJson } from "../core/audit/canonical.ts";
import { changeContext, revertApplies } from "../core/catalogue/action.ts";
import { findAction } from "../core/catalogue/index.ts";
import type { Action } from "../core/catalogue/action.ts";
import { needsRoot } from "../core/catalogue/needs.ts";
import { errorBody, HostgateError, toHostgateError } from "../core/errors.ts";
import { redactDeep } from "../core/redact.ts";
import { planOrderProblem } from "../core/transaction/plan-order.ts";
import { isReceiptShaped } from "../core/transaction/receipt.ts";
import { OWN_SOCKET_APPROVER, approveCommandText } from "../core/approver.ts";
import { DEFAULT_CONFIRM_WINDOW_S, effectiveState, type Transaction } from "../core/transaction/transaction.ts";
import { EXECUTE_EXAMPLE, type ExecuteInput, type ExecuteResult, type StepResult } from "../ipc/protocol.ts";
import { audit, checkpointRef } from "./audit-log.ts";
import { actorOf, type Caller } from "../core/caller.ts";
import type { DaemonDeps } from "./deps.ts";
import type { Progress } from "../ipc/protocol.ts";
import type { HostEntry } from "./hosts.ts";
import { connectionOf, viaOf } from "./connection-audit.ts";
import { prepareStep } from "./plan.ts";
import { actionExposure, DEFAULT_EXPOSURE } from "./exposure.ts";

/** Wall-time budget for one step's apply, in milliseconds (package installs can be slow). */
export const APPLY_TIMEOUT_MS = 10 * 60 * 1000;

type Step = ExecuteInput["steps"][number];

/** One mutation at a time: the preview is re-computed and applied under this lock, so nothing races it. */
let lock: Promise<unknown> = Promise.resolve();
/** Runs `fn` under the one mutation lock (execute's applies and the daemon's reverts, app/revert.ts). */
export function underLock<T>(fn: () => Promise<T>): Promise<T> {
  const run = lock.then(fn, fn);
  lock = run.catch(() => undefined);
  return run;
}

const sameParams = (a: unknown, b: unknown): boolean => {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
};

/**
 * Why a receipt does not open this transaction, from the stored facts; null when it may. A plan's receipt opens
 * each step of that plan once, in plan order (issue 22): never a step of another plan, never a step whose
 * earlier steps have not all succeeded (`out_of_order` while one waits or runs, `plan_halted` once one ended
 * any other way: then no later step of the plan can run with this receipt, ever).
 */
function receiptProblem(deps: DaemonDeps, tx: Transaction, receiptHash: string): HostgateError | null {
  const store = deps.transactions();
  const owners = store.findByReceiptHash(receiptHash);
  if (owners.length > 0 && !owners.some((o) => o.id === tx.id)) {
    return new HostgateError("receipt_for_other_transaction", `This receipt was minted for plan ${owners[0]!.plan_id}, not for transaction ${tx.id} (plan ${tx.plan_id}).`, { hint: "Pass each step the receipt printed for its own plan (hostgate approve <plan_id>)." });
  }
  const now = deps.clock.now();
  const state = effectiveState(tx, now);
  if (state === "planned") return new HostgateError("not_approved", `Transaction ${tx.id} (plan ${tx.plan_id}) has not been approved.`, { hint: `Ask the user to run ${approveCommandText(deps.approver ?? OWN_SOCKET_APPROVER, tx.plan_id)} in a terminal and give you the receipt it prints.` });
  if (owners.length === 0) return new HostgateError("receipt_mismatch", `This receipt does not belong to transaction ${tx.id}.`, { hint: `Use the exact receipt \`hostgate approve ${tx.plan_id}\` printed for this plan.` });
  if (store.receiptConsumed(tx.id)) return new HostgateError("receipt_used", `The receipt already ran transaction ${tx.id} (step ${tx.plan_seq} of plan ${tx.plan_id}); a receipt opens each step of its plan once.`, { hint: "Plan the change again if it must run again." });
  if (state === "expired") return new HostgateError("receipt_expired", `The receipt for ${tx.id} expired (receipts last 15 minutes).`, { hint: "Plan again and have the user approve the new plan." });
  if (state !== "approved") return new HostgateError("transaction_closed", `Transaction ${tx.id} is ${state}.`);
  const order = planOrderProblem(store.planSteps(tx.plan_id).map((s) => ({ id: s.id, seq: s.plan_seq, action_name: s.action_name, state: effectiveState(s, now) })), tx.plan_seq);
  if (order?.kind === "waiting") {
    return new HostgateError("out_of_order", `Step ${tx.plan_seq} of plan ${tx.plan_id} runs only after step ${order.step.seq} (transaction ${order.step.id}, ${order.step.action_name}), which is ${order.step.state}; a plan's steps run in order.`, {
      hint: "Execute the plan's steps in the order plan returned them (one call may carry them all, in order).", details: { plan_id: tx.plan_id, waiting_for: order.step.id },
    });
  }
  if (order?.kind === "halted") {
    return new HostgateError("plan_halted", `Plan ${tx.plan_id} halted at step ${order.step.seq} (transaction ${order.step.id}, ${order.step.action_name}), which ${order.step.state === "failed" ? "failed" : `is ${order.step.state}`}; its later steps never run with this receipt.`, {
      hint: "Check the host (history shows what ran), then plan the remaining change again and have the user approve the new plan.", details: { plan_id: tx.plan_id, stopped_at: order.step.id },
    });
  }
  return null;
}

/** A captured prior state as stored: JSON only (undefined → null). */
function redactFree(prior: unknown): unknown {
  return prior === undefined ? null : JSON.parse(JSON.stringify(prior)) as unknown;
}

/** The shape of a transaction id (crypto.randomUUID). */
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function runStep(deps: DaemonDeps, step: Step, caller: Caller, planReceipt: string | undefined): Promise<StepResult> {
  const actor = actorOf(caller);
  const started = deps.clock.now();
  const base = { transaction_id: step.transaction_id, action_name: step.action_name };
  const refuse = async (err: HostgateError): Promise<StepResult> => {
    await audit(deps.audit(), "execute.refused", actor, { transaction_id: step.transaction_id, action: step.action_name, host: step.host, code: err.code, message: err.message }).catch(() => undefined);
    return { ...base, status: "refused", output: null, error: errorBody(err), duration_ms: deps.clock.now() - started, separation: null };
  };
  // The step's own receipt, else the call's top-level one (the same plan receipt for every step).
  const receipt = step.approval_receipt ?? planReceipt ?? "";
  if (!isReceiptShaped(receipt)) {
    const planId = deps.transactions().get(step.transaction_id)?.plan_id ?? "<plan_id>";
    const what = receipt === "" ? "No approval_receipt was given (on the step or at the top level)." : "approval_receipt is not a receipt (a receipt is hgr_ followed by 43 characters, printed by `hostgate approve`).";
    return refuse(new HostgateError("invalid_receipt", `${what} A chat reply such as "yes" is not an approval.`, {
      hint: `Ask the user to run ${approveCommandText(deps.approver ?? OWN_SOCKET_APPROVER, planId)} in a terminal; it prints one receipt starting with hgr_ for the whole plan.`,
    }));
  }
  const tx = deps.transactions().get(step.transaction_id);
  if (!tx) {
    const shape = UUID_SHAPE.test(step.transaction_id) ? `No transaction ${step.transaction_id}.` : `${JSON.stringify(step.transaction_id)} is not a transaction id: ids are UUIDs such as 046110b2-253f-4cff-ab0e-349d69684139, returned by plan as steps[].transaction_id.`;
    return refuse(new HostgateError("unknown_transaction", shape, { hint: `A valid call: ${EXECUTE_EXAMPLE}.` }));
  }
  if (tx.action_name !== step.action_name || !sameParams(tx.params, step.params)) {
    return refuse(new HostgateError("params_changed", `The action or params differ from what transaction ${tx.id} planned and the human approved.`, { hint: "Send the transaction's action_name and params unchanged, or plan the new change." }));
  }
  if (step.host !== undefined && step.host !== tx.host) {
    return refuse(new HostgateError("host_mismatch", `Transaction ${tx.id} was planned for host ${tx.host}, not ${step.host}; a receipt is bound to one host.`, { hint: "Send the host plan returned for this transaction, or plan the change for the other host." }));
  }
  const receiptHash = deps.crypto.sha256Hex(receipt);
  const problem = receiptProblem(deps, tx, receiptHash);
  if (problem) return refuse(problem);
  let host;
  try {
    host = await deps.hosts.resolve(tx.host);
  } catch (err) {
    return refuse(toHostgateError(err));
  }
  const action = findAction(tx.action_name, host.ctx.family, deps.catalogue);
  if (!action) return refuse(new HostgateError("unknown_action", `${tx.action_name} is no longer in the catalogue.`));
  // The exposure settings as they are now (review s24): a step planned and approved while its toolset or `plan` was on
  // does not run after the daemon came back with it off. Refused before the receipt is used.
  const exposure = actionExposure({ action: action.name, access: action.access, toolsets: action.toolsets }, deps.exposure ?? DEFAULT_EXPOSURE);
  if (!exposure.offered) {
    return refuse(new HostgateError("tool_disabled", `${tx.action_name} is turned off in this daemon since transaction ${tx.id} was planned: ${exposure.reason}. Nothing was run; the receipt was not used.`, {
      hint: `To run it, ${exposure.fix} in the daemon's configuration (hostgate config path shows which file), restart the daemon and execute again with the same receipt; or reject the plan (hostgate reject ${tx.plan_id}).`,
      details: { action: tx.action_name, reason: exposure.reason, fix: exposure.fix },
    }));
  }

  // The approval's separation travels with everything the step does: `none` is not a separated human approval.
  const separation = tx.separation ?? "none";
  return underLock(async () => {
    // Root is asked for again, fresh: plan's answer may be minutes old and a sudo rule removed since then would
    // only fail half-way through apply. Refused before the receipt is used: restore the rule and execute again.
    const lost = await privilegeLost(host, action, tx.id);
    if (lost) return refuse(lost);
    if (!deps.transactions().consumeReceipt(tx.id, receiptHash, deps.clock.now())) {
      return refuse(receiptProblem(deps, deps.transactions().get(tx.id) ?? tx, receiptHash) ?? new HostgateError("receipt_used", `The receipt for ${tx.id} was already used.`));
    }
    // How the host is reached (issue 20): named by the intent and the result entries; undefined on `local`.
    let via: ReturnType<typeof viaOf>;
    const fail = async (err: HostgateError, refused: boolean, forced?: "unknown"): Promise<StepResult> => {
      const error = errorBody(err);
      // A step that timed out may still be changing the host: its outcome is unknown, never "failed and safe".
      const state = forced ?? (!refused && err.code === "timeout" ? "unknown" : "failed");
      deps.transactions().finish(tx.id, state, null, { code: err.code, message: err.message }, deps.clock.now());
      await audit(deps.audit(), refused ? "execute.refused" : "execute.result", actor, { transaction_id: tx.id, action: tx.action_name, host: tx.host, status: state, code: err.code, message: err.message, separation, via }).catch(() => undefined);
      return { ...base, status: refused ? "refused" : "failed", output: null, error, duration_ms: deps.clock.now() - started, separation };
    };
    let fresh;
    try {
      fresh = await prepareStep(deps, tx.action_name, tx.params, tx.host, caller.role, tx.preview_salt);
    } catch (err) {
      return fail(toHostgateError(err), true);
    }
    if (fresh.preview_hash !== tx.preview_hash) {
      return fail(new HostgateError("plan_changed", `The host changed since transaction ${tx.id} was approved: its preview is different now. Nothing was run.`, { hint: "Plan again and have the user approve the new preview." }), true);
    }
    try {
      via = viaOf(await connectionOf(host.ctx), needsRoot(action));
      await audit(deps.audit(), "execute.intent", actor, { transaction_id: tx.id, action: tx.action_name, host: tx.host, preview_hash: tx.preview_hash, separation, via }, true);
    } catch (err) {
      return fail(toHostgateError(err), true);
    }
    // Confirm-or-auto-revert (issue 24): the prior state is captured and stored before anything changes.
    const reverts = action.access === "mutating" && action.revert !== undefined && revertApplies(action, tx.params) ? action.revert : null;
    if (reverts) {
      try {
        deps.transactions().recordPrior(tx.id, redactFree(await reverts.capture(tx.params, changeContext(host.ctx))), deps.clock.now());
      } catch (err) {
        return fail(toHostgateError(err), true);
      }
    }
    try {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => { reject(new HostgateError("timeout", `${tx.action_name} did not finish within ${APPLY_TIMEOUT_MS / 1000} s.`)); }, APPLY_TIMEOUT_MS); });
      const run = action.access === "mutating" ? action.apply(tx.params, changeContext(host.ctx), fresh.preview) : action.run(tx.params, host.ctx);
      const output: unknown = redactDeep(await Promise.race([run, timeout]).finally(() => { clearTimeout(timer); })).value;
      if (reverts) {
        const windowS = fresh.preview.confirm?.window_s ?? deps.confirm_window_s ?? DEFAULT_CONFIRM_WINDOW_S;
        const now = deps.clock.now();
        const deadline = now + windowS * 1000;
        deps.transactions().awaitConfirm(tx.id, output, deadline, now);
        deps.scheduleRevert?.(deadline);
        const confirmBy = new Date(deadline).toISOString();
        await audit(deps.audit(), "execute.result", actor, { transaction_id: tx.id, action: tx.action_name, host: tx.host, status: "awaiting_confirm", confirm_deadline: confirmBy, separation, via }).catch(() => undefined);
        return { ...base, status: "succeeded", output, error: null, duration_ms: deps.clock.now() - started, separation, confirm: { state: "awaiting_confirm", window_s: windowS, deadline: confirmBy, command: `hostgate confirm ${tx.id}` } };
      }
      deps.transactions().finish(tx.id, "succeeded", output, null, deps.clock.now());
      await audit(deps.audit(), "execute.result", actor, { transaction_id: tx.id, action: tx.action_name, host: tx.host, status: "succeeded", separation, via }).catch(() => undefined);
      return { ...base, status: "succeeded", output, error: null, duration_ms: deps.clock.now() - started, separation };
    } catch (err) {
      const e = toHostgateError(err);
      // A failed apply of a step with a captured prior state is rolled back now: `failed` once restored, else `unknown`.
      if (reverts && e.code !== "timeout") {
        try {
          await reverts.restore(tx.params, changeContext(host.ctx), deps.transactions().priorOf(tx.id)?.prior);
        } catch (restoreErr) {
          const r = toHostgateError(restoreErr);
          return fail(new HostgateError("revert_failed", `${e.message} Restoring the prior state failed too: ${r.message}`, { hint: "Check the host by hand: its state is unknown." }), false, "unknown");
        }
      }
      return fail(e, false);
    }
  });
}

/** How often a running step reports that it still runs (issue 24: package installs take minutes), in ms. */
export const PROGRESS_EVERY_MS = 5_000;

/**
 * Reports step `i` (from 0) of `total` as started, then every {@link PROGRESS_EVERY_MS} while it runs, with its
 * elapsed seconds. Progress counts half steps so it grows strictly (MCP requires it) and ends at `total`: of
 * `2 × total`, a step starts at 2i + 1, its k-th report is 2i + 1 + k/(k+1) (below 2i + 2), and the caller reports
 * its end as 2i + 2. Returns the function that stops the reports.
 */
function stepProgress(progress: (p: Progress) => void, i: number, total: number, action: string): () => void {
  const label = `step ${i + 1}/${total} ${action}`;
  const started = Date.now();
  let k = 0;
  progress({ progress: 2 * i + 1, total: 2 * total, message: `${label}: running` });
  const timer = setInterval(() => {
    k++;
    progress({ progress: 2 * i + 1 + k / (k + 1), total: 2 * total, message: `${label}: running, ${Math.round((Date.now() - started) / 1000)} s` });
  }, PROGRESS_EVERY_MS);
  timer.unref();
  return () => { clearInterval(timer); };
}

/**
 * Execute's privilege re-check (issue 20): for a step that needs root on a remote host, asks the host now
 * (`HostConnection.privilege({ fresh: true })`, one round trip, never the answer plan kept) whether the login
 * still gets root without a prompt. Returns the error to refuse the step with (`sudo_password_required` /
 * `privilege_unavailable` with the adapter's hint, or the connection's error when the host cannot be asked),
 * else null. `local` and steps that need no root are not asked.
 */
async function privilegeLost(host: HostEntry, action: Action, txId: string): Promise<HostgateError | null> {
  const connection = host.ctx.connection;
  if (!connection || !needsRoot(action)) return null;
  let c;
  try {
    c = await connection.privilege({ fresh: true });
  } catch (err) {
    return toHostgateError(err);
  }
  if (c.ok) return null;
  return new HostgateError(c.code, `${c.message.replace(/; nothing ran\.$/, ".")} It could when transaction ${txId} was planned; nothing was applied on ${host.id}, and the receipt was not used.`, {
    hint: `${c.hint} Then execute again with the same receipt, or reject the plan.`,
    details: { host: host.id, login: c.login, action: action.name },
  });
}

/**
 * `execute`: runs approved transactions, in order, each exactly once. Each step's receipt is its own
 * `approval_receipt`, else the call's top-level one. The daemon re-checks everything here, whatever the front
 * sent: receipt shape, transaction, action and params unchanged, the action still offered by the exposure settings
 * (app/exposure.ts actionExposure: `tool_disabled`, the receipt not used), receipt minted for this transaction's plan,
 * unexpired and not yet used for this step, every earlier step of the plan succeeded (`out_of_order` /
 * `plan_halted`; checked again in the same statement that consumes it, so of concurrent executes exactly one
 * runs a step, and only in plan order), the
 * preview re-computed under the lock and equal to the approved preview_hash (`plan_changed` otherwise), and a
 * durable audit entry of the intent before anything runs (`audit_unavailable` refuses). Halts at the first
 * step that does not succeed; the rest are `skipped`. With `progress` (the front's client sent a progressToken), each
 * step is reported when it starts, every {@link PROGRESS_EVERY_MS} while it runs, and when it ends (issue 24).
 */
export async function execute(deps: DaemonDeps, input: ExecuteInput, caller: Caller, progress?: (p: Progress) => void): Promise<ExecuteResult> {
  const results: StepResult[] = [];
  let halted = false;
  const total = input.steps.length;
  for (const [i, step] of input.steps.entries()) {
    if (halted) {
      results.push({ transaction_id: step.transaction_id, action_name: step.action_name, status: "skipped", output: null, error: null, duration_ms: 0, separation: null });
      continue;
    }
    const stop = progress ? stepProgress(progress, i, total, step.action_name) : undefined;
    const r = await runStep(deps, step, caller, input.approval_receipt).finally(() => stop?.());
    progress?.({ progress: 2 * i + 2, total: 2 * total, message: `step ${i + 1}/${total} ${step.action_name}: ${r.status}` });
    results.push(r);
    if (r.status !== "succeeded") halted = true;
  }
  let checkpoint: ExecuteResult["checkpoint"] = null;
  try {
    checkpoint = checkpointRef(deps.audit());
  } catch {
    checkpoint = null;
  }
  return { results, halted, checkpoint };
}
