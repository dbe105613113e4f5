import type { RiskLevel } from "../catalogue/action.ts";

/**
 * A policy decision (DESIGN.md, Words: risk): allow, deny, require_approval, or require_biometric (a human
 * approval with a passkey: core/approval-proof.ts). `reasons` are one line each, most important first;
 * `source` names what decided (`risk_engine_only` until a policy engine is configured).
 */
export type { PolicyDecisionKind } from "./gate.ts";
import type { PolicyDecisionKind } from "./gate.ts";

/** The decision and why. */
export interface PolicyDecision {
  decision: PolicyDecisionKind;
  reasons: string[];
  source: string;
}

/**
 * The decision for a risk level with no user policy (docs/risk.md, "Decision table"):
 * critical → deny, high → require_approval, medium and low → allow.
 */
export function decisionForRisk(level: RiskLevel): "allow" | "deny" | "require_approval" {
  if (level === "critical") return "deny";
  if (level === "high") return "require_approval";
  return "allow";
}
