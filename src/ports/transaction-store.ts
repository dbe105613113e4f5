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
  /**
   * Ids starting with `prefix` (case-sensitive, any state), in id order, at most `limit`: how a human's
   * shortened id is resolved (app/approve.ts `resolveTransactionId`).
   */
  idsWithPrefix(prefix: string, limit: number): string[];
  list(filter?: TxFilter): Transaction[];
  /** The transaction a receipt hash was minted for, consumed or not; null when no receipt has that hash. */
  findByReceiptHash(receiptHash: string): Transaction | null;
  /** Whether the receipt with this hash has already been consumed. */
  receiptConsumed(id: string): boolean;
  /** planned → approved, storing the receipt hash and its expiry. */
  approve(id: string, receiptHash: string, approvedBy: string, now: number, receiptExpiresAt: number, separation: Separation): boolean;
  /** planned → rejected. */
  reject(id: string, by: string, now: number): boolean;
  /** approved → executing, consuming the receipt: wins only with the matching hash, unconsumed and unexpired. */
  consumeReceipt(id: string, receiptHash: string, now: number): boolean;
  /** executing → succeeded | failed | unknown (a timed-out apply may still be running), with the result or error. */
  finish(id: string, state: "succeeded" | "failed" | "unknown", result: unknown, error: { code: string; message: string } | null, now: number): boolean;
  /** planned | approved → expired. */
  expire(id: string, now: number): boolean;
  /** At start: every transaction left `executing` by a stopped daemon becomes `unknown`. Returns their ids. */
  recoverInterrupted(now: number): string[];
  close(): void;
}
