import type { Separation } from "../approval.ts";
import type { Preview, RiskLevel } from "../catalogue/action.ts";

/**
 * One planned step and its life (DESIGN.md, Words: transaction):
 * planned → approved → executing → succeeded | failed | unknown, or planned → rejected, planned/approved → expired.
 * `unknown` means the daemon stopped while the step ran: it is never re-run blindly.
 * A step under a confirm window (issue 24, action `revert`): executing → awaiting_confirm → succeeded (confirmed
 * in time) | reverting → reverted (prior state restored) | unknown (the restore failed).
 */
export type TxState = "planned" | "approved" | "executing" | "awaiting_confirm" | "reverting" | "succeeded" | "failed" | "unknown" | "reverted" | "rejected" | "expired";
export const TX_STATES: readonly TxState[] = ["planned", "approved", "executing", "awaiting_confirm", "reverting", "succeeded", "failed", "unknown", "reverted", "rejected", "expired"];

/** States a transaction never leaves. */
export const FINAL_STATES: ReadonlySet<TxState> = new Set(["succeeded", "failed", "unknown", "reverted", "rejected", "expired"]);

/** Default confirm window of a step whose action reverts unless confirmed, in seconds (issue 24; config `approval.confirm_window_s`). */
export const DEFAULT_CONFIRM_WINDOW_S = 120;

/** How long a minted receipt stays valid, by the daemon's clock (reference: daemon-approval, "expire after 15 minutes"). */
export const RECEIPT_TTL_MS = 15 * 60 * 1000;
/** How long a planned transaction waits for approval before it expires (ours: one hour). */
export const PLAN_TTL_MS = 60 * 60 * 1000;

/** A transaction as stored and as `history` shows it. Times are milliseconds since the epoch. */
export interface Transaction {
  id: string;
  /**
   * The plan this step belongs to (a UUID `plan` returned): one approval and one receipt cover every step of a
   * plan (issue 22). A row from before plans (state v4) is a plan of one whose plan_id is its own id.
   */
  plan_id: string;
  /** Its place in the plan, from 1: a step runs only after every earlier step of its plan succeeded. */
  plan_seq: number;
  action_name: string;
  /** Host id the step runs on (`local` or an inventory name); covered by the preview_hash. */
  host: string;
  params: Record<string, unknown>;
  risk_level: RiskLevel;
  preview: Preview;
  preview_hash: string;
  /**
   * Random salt hashed into preview_hash (base64url, 32 bytes; null for rows from before state v4). Never shown
   * to the model: without it the preview_hash is an offline oracle on the hidden parts of the preview.
   */
  preview_salt: string | null;
  state: TxState;
  actor: string;
  created_at: number;
  updated_at: number;
  plan_expires_at: number;
  approved_at: number | null;
  approved_by: string | null;
  receipt_expires_at: number | null;
  /** How the step was planned: explicit steps, the deterministic rules or the LLM planner (null: before v3). */
  planner: "explicit" | "deterministic" | "llm" | null;
  /** The intent text the step was planned from (null for explicit steps). */
  intent: string | null;
  /** Separation of its approval (core/approval.ts); null until approved. */
  separation: Separation | null;
  result: unknown;
  error: { code: string; message: string } | null;
  /**
   * Confirm-or-auto-revert (state v7): when the window ends (ms since the epoch; null: no window, or not applied
   * yet), who confirmed and when (null until confirmed). The captured prior state is kept in the store only.
   */
  confirm_deadline: number | null;
  confirmed_at: number | null;
  confirmed_by: string | null;
}

/** The state a stored transaction is really in at `now`: a lapsed plan or receipt reads as expired. */
export function effectiveState(tx: Transaction, now: number): TxState {
  if (tx.state === "planned" && now >= tx.plan_expires_at) return "expired";
  if (tx.state === "approved" && tx.receipt_expires_at !== null && now >= tx.receipt_expires_at) return "expired";
  return tx.state;
}
