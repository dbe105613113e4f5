import { actorOf, type Caller } from "../core/caller.ts";
import { findAction } from "../core/catalogue/index.ts";
import { changeContext } from "../core/catalogue/action.ts";
import { HostgateError, toHostgateError } from "../core/errors.ts";
import type { Transaction } from "../core/transaction/transaction.ts";
import type { ConfirmResult } from "../ipc/protocol.ts";
import { audit } from "./audit-log.ts";
import type { DaemonDeps } from "./deps.ts";
import { underLock } from "./execute.ts";
import { MIN_ID_PREFIX } from "./approve.ts";

/** Where a confirm came from: `hostgate confirm` on the admin socket, or the approval console's Confirm button. */
export type ConfirmMethod = "admin_socket" | "console";

/** A step waiting for its confirm, as the console lists it: deadline in ms since the epoch (the daemon's clock). */
export interface AwaitingConfirm {
  transaction_id: string;
  action_name: string;
  host: string;
  summary: string;
  deadline: number;
}

/** The steps waiting for a confirm now (state awaiting_confirm, window still open by the daemon's clock), soonest deadline first. */
export function awaitingConfirm(deps: DaemonDeps, limit = 100): AwaitingConfirm[] {
  const now = deps.clock.now();
  return deps.transactions().list({ state: "awaiting_confirm", limit })
    .filter((tx) => tx.confirm_deadline !== null && tx.confirm_deadline > now)
    .map((tx) => ({ transaction_id: tx.id, action_name: tx.action_name, host: tx.host, summary: tx.preview.summary, deadline: tx.confirm_deadline! }))
    .sort((a, b) => a.deadline - b.deadline);
}

/**
 * The one step waiting for a confirm whose id starts with `typed` (≥ {@link MIN_ID_PREFIX} characters), or
 * undefined when none does. Throws `ambiguous_transaction` when several do.
 */
function waitingWithPrefix(deps: DaemonDeps, typed: string): Transaction | undefined {
  const prefix = typed.trim().toLowerCase();
  if (prefix.length < MIN_ID_PREFIX || !/^[0-9a-f-]+$/.test(prefix)) return undefined;
  const matches = deps.transactions().list({ state: "awaiting_confirm", limit: 1000 }).filter((tx) => tx.id.startsWith(prefix));
  if (matches.length > 1) {
    throw new HostgateError("ambiguous_transaction", `${prefix} starts the ids of ${matches.length} steps waiting for a confirm: ${matches.slice(0, 10).map((t) => t.id).join(", ")}. Type more characters of the one you mean.`, { details: { matches: matches.slice(0, 10).map((t) => t.id) } });
  }
  return matches[0];
}

/** The shape of a transaction id (crypto.randomUUID). */
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * `confirm` (admin socket; `hostgate confirm <transaction_id>`, and the console later): keeps a change that
 * reverts unless confirmed (issue 24, "commit confirmed"). Takes the transaction id (a confirm is about one
 * applied step, not a plan), or a prefix of at least {@link MIN_ID_PREFIX} characters that starts exactly one
 * step waiting for its confirm (as `hostgate approve` takes prefixes; an ambiguous prefix is
 * `ambiguous_transaction` listing the matches). Moves awaiting_confirm → succeeded only while the window is open, in one
 * compare-and-set, so a confirm racing the daemon's revert either wins (kept) or gets `confirm_too_late`.
 * Audited `execute.confirmed` (durable) before the state moves, with `method`: `admin_socket` (`hostgate confirm`)
 * or `console` (the approval console's Confirm button). Errors: `unknown_transaction`, `not_awaiting_confirm`
 * (state says which), `confirm_too_late`.
 */
export async function confirm(deps: DaemonDeps, id: string, caller: Caller, method: ConfirmMethod = "admin_socket"): Promise<ConfirmResult> {
  const store = deps.transactions();
  const tx = store.get(id) ?? waitingWithPrefix(deps, id);
  if (!tx) {
    const why = UUID_SHAPE.test(id) ? `No transaction ${id}.` : `${JSON.stringify(id)} is not a transaction id, nor the first ${MIN_ID_PREFIX} or more characters of one waiting for a confirm; confirm takes the transaction_id execute returned (confirm.command shows it).`;
    throw new HostgateError("unknown_transaction", why, { hint: "Copy the command from the execute result, or find the id with `hostgate pending` / history." });
  }
  const now = deps.clock.now();
  const late = (): HostgateError => new HostgateError("confirm_too_late", `The confirm window of ${tx.id} (${tx.action_name} on ${tx.host}) ended at ${new Date(tx.confirm_deadline ?? now).toISOString()}; the daemon restores (or restored) the prior state.`, {
    hint: "Check the host with history; plan the change again if it is still wanted.",
  });
  if (tx.state === "reverting" || tx.state === "reverted" || (tx.state === "unknown" && tx.confirm_deadline !== null)) throw late();
  if (tx.state !== "awaiting_confirm") {
    throw new HostgateError("not_awaiting_confirm", `Transaction ${tx.id} (${tx.action_name}) is ${tx.state}; only an applied step with a confirm window can be confirmed.`, {
      hint: tx.state === "succeeded" ? "Nothing to do: the change is kept." : "Only steps whose preview shows AUTO-REVERT wait for a confirm, after execute applied them.",
    });
  }
  if (tx.confirm_deadline !== null && now >= tx.confirm_deadline) throw late();
  const by = actorOf(caller);
  await audit(deps.audit(), "execute.confirmed", by, { transaction_id: tx.id, plan_id: tx.plan_id, action: tx.action_name, host: tx.host, status: "succeeded", method }, true);
  if (!store.confirm(tx.id, by, now)) throw late();
  return { transaction_id: tx.id, action_name: tx.action_name, host: tx.host, state: "succeeded", confirmed_at: new Date(now).toISOString() };
}

/** What one revert did: the transaction and its end state (`reverted`, or `unknown` when the restore failed). */
export interface RevertOutcome {
  transaction_id: string;
  state: "reverted" | "unknown";
  error: { code: string; message: string } | null;
}

/** Restores one claimed (reverting) step's prior state under the mutation lock, records the end state and audits it. */
async function revertOne(deps: DaemonDeps, tx: Transaction, why: "deadline" | "restart"): Promise<RevertOutcome> {
  const store = deps.transactions();
  let error: { code: string; message: string } | null = null;
  try {
    const host = await deps.hosts.resolve(tx.host);
    const action = findAction(tx.action_name, host.ctx.family, deps.catalogue);
    if (!action || action.access !== "mutating" || !action.revert) throw new HostgateError("revert_failed", `${tx.action_name} has no restore in this daemon's catalogue.`);
    const prior = store.priorOf(tx.id);
    if (!prior) throw new HostgateError("revert_failed", `Transaction ${tx.id} has no recorded prior state.`);
    const restore = action.revert.restore.bind(action.revert);
    await underLock(() => restore(tx.params, changeContext(host.ctx), prior.prior));
  } catch (err) {
    const e = toHostgateError(err);
    error = { code: "revert_failed", message: `Restoring the state from before ${tx.action_name} failed: ${e.message} The host's state is unknown; check it by hand.` };
  }
  const state = error ? "unknown" : "reverted";
  store.finishRevert(tx.id, state, error, deps.clock.now());
  const message = why === "restart" ? "not confirmed before the daemon restarted" : "not confirmed within its window";
  await audit(deps.audit(), "execute.reverted", "daemon", { transaction_id: tx.id, plan_id: tx.plan_id, action: tx.action_name, host: tx.host, status: state, message: error ? error.message : `prior state restored: ${message}` }, true).catch(() => undefined);
  return { transaction_id: tx.id, state, error };
}

/**
 * Restores every step whose confirm window has ended by the daemon's clock (`restart`: every step still waiting
 * or left mid-revert, whatever its deadline: a restarted daemon cannot know whether a human lost access). Each
 * step is claimed (awaiting_confirm → reverting) before its restore, so a concurrent confirm and revert never
 * both win. Returns what it did, oldest deadline first.
 */
export async function revertDue(deps: DaemonDeps, opts: { restart?: boolean } = {}): Promise<RevertOutcome[]> {
  const store = deps.transactions();
  const now = deps.clock.now();
  const out: RevertOutcome[] = [];
  for (const tx of store.dueReverts(opts.restart ? undefined : now)) {
    if (tx.state === "awaiting_confirm" && !store.claimRevert(tx.id, deps.clock.now())) continue;
    out.push(await revertOne(deps, tx, opts.restart ? "restart" : "deadline"));
  }
  return out;
}
