import type { PolicyEngine } from "../../ports/policy-engine.ts";
import { decisionForRisk } from "./decision.ts";

/** Source name of the default engine (kept on the wire as `policy.source`). */
export const RISK_ONLY_SOURCE = "risk_engine_only";

/**
 * The default PolicyEngine: the risk engine's decision table alone (critical → deny, high →
 * require_approval, otherwise allow); reasons are the ids of the risk engine's signals. Not `configured`:
 * exec_on_host does not count it as a policy.
 */
export const riskOnlyPolicy: PolicyEngine = {
  name: RISK_ONLY_SOURCE,
  configured: false,
  decide: (request) => ({
    decision: decisionForRisk(request.context.risk_level),
    reasons: request.context.signals.length > 0 ? request.context.signals.map((id) => `command risk: ${id}`) : ["only read-only commands the engine knows"],
    policies: [],
  }),
};
