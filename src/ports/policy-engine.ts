import type { RiskLevel } from "../core/catalogue/action.ts";
import type { Caller } from "../core/caller.ts";
import type { PolicyDecision } from "../core/policy/decision.ts";

/**
 * What a policy decides on: one command line (plan_command, exec_on_host) or one catalogue action (plan),
 * for one host and one caller, after the risk engine has judged it. `risk` is the engine's level and the
 * ids/reasons of its signals.
 */
export interface PolicyRequest {
  kind: "command" | "action";
  /** The command line (kind `command`) or the PascalCase action name (kind `action`). */
  subject: string;
  host: string;
  caller: Caller | null;
  risk: { risk_level: RiskLevel; signals: readonly { id: string; severity: RiskLevel; reason: string }[] };
}

/**
 * Decides allow | deny | require_approval | require_biometric for a request (DESIGN.md: "No command line from
 * the model runs without the risk engine and policy"). The default is core/policy/risk-only.ts (the risk
 * engine's decision table alone, `source: "risk_engine_only"`); a configured engine (e.g. Cedar) may deny
 * more, never allow what the risk engine denies. Must not throw for a well-formed request: an engine that
 * cannot decide returns `deny` with the reason.
 */
export interface PolicyEngine {
  /** Short name recorded as the decision's source when the engine has no finer one. */
  readonly name: string;
  decide(request: PolicyRequest): PolicyDecision | Promise<PolicyDecision>;
}
