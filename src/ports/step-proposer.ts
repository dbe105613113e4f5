import type { Action } from "../core/catalogue/action.ts";

/**
 * Proposes catalogue steps for an intent (an LLM behind an OpenAI-compatible API, adapters/planner-openai.ts).
 * Never returns text to run: every proposal is validated against the catalogue like an explicit step.
 * Throws HostgateError `planner_error` when the model cannot be reached or answers something else.
 */
export interface StepProposer {
  readonly name: string;
  propose(intent: string, catalogue: readonly Action[]): Promise<{ action: string; params: Record<string, unknown> }[]>;
}
