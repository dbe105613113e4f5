import type { TxState } from "./transaction.ts";

/** One step of a plan as the order rule sees it. */
export interface PlanStepState {
  id: string;
  /** Place in the plan, from 1. */
  seq: number;
  action_name: string;
  /** The state at the time of the check (effectiveState: a lapsed receipt reads as expired). */
  state: TxState;
}

/**
 * Why step `seq` of a plan may not run yet, or null when every earlier step succeeded (issue 22: a plan's
 * receipt opens its steps in plan order). `waiting`: an earlier step is approved or running and has not
 * finished (run it first; nothing is lost). `halted`: an earlier step ended in any other state (failed,
 * unknown, rejected, expired), so no later step of this plan can ever run with its receipt. The first
 * earlier step that is not `succeeded` is named.
 */
export function planOrderProblem(steps: readonly PlanStepState[], seq: number): { kind: "waiting" | "halted"; step: PlanStepState } | null {
  const earlier = steps.filter((s) => s.seq < seq).sort((a, b) => a.seq - b.seq);
  // A step applied and waiting for its confirm has run: later steps may run (a revert does not undo them).
  const blocking = earlier.find((s) => s.state !== "succeeded" && s.state !== "awaiting_confirm");
  if (!blocking) return null;
  return { kind: blocking.state === "approved" || blocking.state === "executing" || blocking.state === "planned" ? "waiting" : "halted", step: blocking };
}
