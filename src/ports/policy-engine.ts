import type { PolicyRequest, PolicyVerdict } from "../core/policy/gate.ts";

export type { PolicyRequest, PolicyVerdict };

/**
 * Decides allow | deny | require_approval | require_biometric for one command on one host, for one caller, after
 * the risk engine has judged it (DESIGN.md: "No command line from the model runs without the risk engine and
 * policy"). Implemented by the Cedar engine (adapters/policy-cedar, `name: "cedar"`, `configured: true`) and by
 * the default risk-only engine (core/policy/risk-only.ts: the risk engine's decision table alone,
 * `name: "risk_engine_only"`, `configured: false`).
 *
 * An engine never loosens the risk engine: callers combine its verdict with core/policy/gate.ts (`judge`,
 * `narrow`), which keeps the stricter decision and refuses critical commands whatever the engine says.
 * exec_on_host treats an engine that is not `configured` as no policy at all (refused unless
 * `exec.allow_unverified`). Must not throw for a well-formed request: an engine that cannot decide returns
 * `deny` with the reason.
 */
export interface PolicyEngine {
  /** The decision's source on the wire and in the audit chain (`cedar`, `risk_engine_only`). */
  readonly name: string;
  /** True for a policy an admin configured; false for the risk-only default. */
  readonly configured: boolean;
  decide(request: PolicyRequest): PolicyVerdict;
}
