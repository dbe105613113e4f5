import { LOCAL_HOST } from "../../core/host-id.ts";
import { execPolicyRequest, type PolicyPrincipal } from "../../core/policy/exec-request.ts";
import { stricter, type PolicyDecisionKind, type SkillLaunchFacts } from "../../core/policy/gate.ts";
import type { RiskEngine } from "../../core/risk/index.ts";
import type { PolicyEngine } from "../../ports/policy-engine.ts";

/** One skill launch as the gates judge it: the exact command line, which skill/tree/entrypoint, and who asks. */
export interface SkillLaunch {
  /** The launch line, each argv word POSIX-quoted (`/bin/bash <store>/<digest>/scripts/x.sh --days 1`). */
  command: string;
  skill: SkillLaunchFacts;
  /** The caller as policies see it (role, client name: the client's own claim, kernel uid or null). */
  who: PolicyPrincipal;
}

/**
 * The verdict on a launch. `refused_by` names the gate that refused (`risk_engine` or `policy`), null when the
 * launch may run; `decision` is the stricter of the two (a grant stands for the human approval a
 * `require_approval` asks for; `deny` and `require_biometric` refuse). `policy_source` is `cedar` when policy.dir
 * is set, `risk_engine_only` otherwise; `policies` the ids of the Cedar policies that decided.
 */
export interface LaunchVerdict {
  decision: PolicyDecisionKind;
  risk_level: string;
  reason: string;
  refused_by: "risk_engine" | "policy" | null;
  policy_source: string;
  policies: string[];
}

/**
 * Judges a skill launch (skills_execute) by the risk engine, then the daemon's PolicyEngine, narrow-only
 * (core/policy/gate.ts): a critical or denied command is refused by the risk engine whatever a policy says; a
 * configured policy (Cedar) is asked about action `exec` on host `local` by the calling principal, with the
 * skill's name, digest and entrypoint in the context (core/policy/cedar-model.ts), and can only narrow. The
 * risk-only default adds nothing to the risk engine's decision. Never throws for a well-formed launch.
 */
export async function judgeSkillLaunch(launch: SkillLaunch, deps: { engine: RiskEngine | Promise<RiskEngine>; policy: PolicyEngine }): Promise<LaunchVerdict> {
  const a = (await deps.engine).assess(launch.command, { interpreter: "bash" });
  const top = a.signals[0];
  const riskReason = top ? `command risk: ${top.reason}` : "command risk: only read-only commands the engine knows";
  const base = { risk_level: a.risk_level, policy_source: deps.policy.name };
  if (a.risk_level === "critical" || a.decision === "deny") {
    return { ...base, decision: "deny", reason: riskReason, refused_by: "risk_engine", policies: [] };
  }
  if (!deps.policy.configured) return { ...base, decision: a.decision, reason: riskReason, refused_by: null, policies: [] };
  const request = execPolicyRequest(a, launch.command, "bash", launch.who, { name: LOCAL_HOST, primary_ip: "", provider: "local", backend: "local", tags: [] });
  const verdict = deps.policy.decide({ ...request, context: { ...request.context, skill: launch.skill } });
  const decision = stricter(a.decision, verdict.decision);
  const policyReason = `policy (${deps.policy.name}): ${verdict.reasons.join("; ") || verdict.decision}`;
  const refused = verdict.decision === "deny" || verdict.decision === "require_biometric";
  return { ...base, decision, reason: refused ? policyReason : `${riskReason}; ${policyReason}`, refused_by: refused ? "policy" : null, policies: verdict.policies };
}
