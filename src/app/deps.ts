import type { Action, ActionContext } from "../core/catalogue/action.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { Crypto } from "../ports/crypto.ts";
import type { Clock } from "../ports/host-probe.ts";
import type { TransactionStore } from "../ports/transaction-store.ts";

/** Proposes catalogue steps for an intent (an LLM behind an OpenAI-compatible API). Never returns text to run. */
export interface StepProposer {
  readonly name: string;
  propose(intent: string, catalogue: readonly Action[]): Promise<{ action: string; params: Record<string, unknown> }[]>;
}

/**
 * Everything the daemon's use cases need, built by the composition root (daemon/compose.ts). Stores are
 * opened on first use (`transactions()`, `audit()`), so read-only queries never touch SQLite.
 */
export interface DaemonDeps {
  ctx: ActionContext;
  catalogue: readonly Action[];
  hostname: string;
  clock: Clock;
  crypto: Crypto;
  transactions(): TransactionStore;
  audit(): AuditStore;
  /** null: the deterministic planner. */
  llm: StepProposer | null;
  /** Facts for doctor: backend selection, state paths, sockets. */
  facts: Record<string, string>;
}

