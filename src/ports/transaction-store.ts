import type { Separation } from "../core/approval.ts";
import type { Transaction, TxState } from "../core/transaction/transaction.ts";

/** Filters for listing transactions; newest first. `limit` defaults to 50 (max 1000). */
export interface TxFilter {
  state?: TxState;
  action?: string;
  /** Only transactions created at or after this time (ms since the epoch). */
  since?: number;
  limit?: number;
}

/**
 * Durable transaction state (adapters/transaction-sqlite.ts). Every state change is a compare-and-set on the
 * current state, committed before the call returns, so two callers can never both move one transaction:
 * that is what makes execute exactly-once. Methods returning boolean report whether this caller won.
 */
export interface TransactionStore {
  insert(tx: Transaction): void;
  get(id: string): Transaction | null;
  list(filter?: TxFilter): Transaction[];
  /** Every step of a plan in plan order (plan_seq), any state; empty for an unknown plan id. */
  planSteps(planId: string): Transaction[];
  /** The plan `id` names: `id` itself when it is a plan id, else the plan of the transaction `id`; null when neither. */
  planIdOf(id: string): string | null;
  /**
   * Plan ids whose plan id or any of whose transaction ids starts with `prefix` (case-sensitive), in plan id
   * order, at most `limit`: how `show` resolves a human's shortened id.
   */
  planIdsWithPrefix(prefix: string, limit: number): string[];
  /** The transactions a receipt hash was minted for (every step of one plan), consumed or not; empty when none. */
  findByReceiptHash(receiptHash: string): Transaction[];
  /** Whether the receipt with this hash has already been consumed. */
  receiptConsumed(id: string): boolean;
  /**
   * planned → approved for every step of plan `planId` at once, storing one receipt hash and expiry on each:
   * all or nothing, in one SQLite transaction. Wins only when the plan's steps are exactly `expected`, in plan
   * order, each with that preview_hash, each still planned and unexpired at `now`; otherwise changes nothing.
   */
  approvePlan(planId: string, expected: readonly { transaction_id: string; preview_hash: string }[], receiptHash: string, approvedBy: string, now: number, receiptExpiresAt: number, separation: Separation): boolean;
  /** planned → rejected for every planned step of plan `planId`, in one SQLite transaction; returns their ids. */
  rejectPlan(planId: string, by: string, now: number): string[];
  /**
   * approved → executing, consuming this step's use of the receipt: wins only with the matching hash, unconsumed
   * and unexpired, and only when every earlier step of its plan has succeeded (plan order, in the same statement).
   */
  consumeReceipt(id: string, receiptHash: string, now: number): boolean;
  /** executing → succeeded | failed | unknown (a timed-out apply may still be running), with the result or error. */
  finish(id: string, state: "succeeded" | "failed" | "unknown", result: unknown, error: { code: string; message: string } | null, now: number): boolean;
  /**
   * Confirm-or-auto-revert (issue 24). While executing, before apply: stores the prior state the action captured
   * (JSON), so a daemon that stops from here on restores it at start instead of leaving `unknown`.
   */
  recordPrior(id: string, prior: unknown, now: number): boolean;
  /** The prior state {@link recordPrior} stored (undefined when none was). */
  priorOf(id: string): { prior: unknown } | undefined;
  /** executing → awaiting_confirm with the apply's result and the end of the confirm window (ms since the epoch). */
  awaitConfirm(id: string, result: unknown, deadline: number, now: number): boolean;
  /** awaiting_confirm → succeeded, recording who confirmed: wins only while `now` is before the deadline. */
  confirm(id: string, by: string, now: number): boolean;
  /** awaiting_confirm → reverting (the daemon claims the restore; a late confirm then loses). */
  claimRevert(id: string, now: number): boolean;
  /** reverting → reverted (prior state restored) | unknown (the restore failed: error says why). */
  finishRevert(id: string, state: "reverted" | "unknown", error: { code: string; message: string } | null, now: number): boolean;
  /**
   * Steps to restore: awaiting_confirm with a deadline at or before `dueBy` (every one when `dueBy` is
   * undefined), and every step left `reverting`. Oldest deadline first.
   */
  dueReverts(dueBy?: number): Transaction[];
  /** The earliest deadline of a step awaiting its confirm, or null when none waits. */
  nextConfirmDeadline(): number | null;
  /** planned | approved → expired. */
  expire(id: string, now: number): boolean;
  /**
   * At start: every transaction left `executing` by a stopped daemon becomes `unknown`, except one with a recorded
   * prior state, which becomes awaiting_confirm with its deadline now (so it is restored). Returns the ids made unknown.
   */
  recoverInterrupted(now: number): string[];
  close(): void;
}
