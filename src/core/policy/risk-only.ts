import type { PolicyEngine } from "../../ports/policy-engine.ts";
import { decisionForRisk } from "./decision.ts";

/** Source name of the default engine (kept on the wire as `policy.source`). */
export const RISK_ONLY_SOURCE = "risk_engine_only";

/**
 * The default PolicyEngine: the risk engine's decision table alone (critical → deny, high →
 * require_approval, otherwise allow); reasons are the signals' reasons, most severe first.
 */
export const riskOnlyPolicy: PolicyEngine = {
  name: RISK_ONLY_SOURCE,
  decide: (request) => ({
    decision: decisionForRisk(request.risk.risk_level),
    reasons: request.risk.signals.length > 0 ? request.risk.signals.map((s) => s.reason) : ["only read-only commands the engine knows"],
    source: RISK_ONLY_SOURCE,
  }),
};
