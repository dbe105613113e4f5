/**
 * Policy decisions (DESIGN.md, Words: policy decision) and how they combine with the command-risk engine.
 * A policy can only narrow what the risk engine allows: the final decision is the stricter of the two, and a
 * critical command is refused whatever either says.
 */
import type { PolicyEngine } from "../../ports/policy-engine.ts";
import type { RiskAssessment } from "../risk/index.ts";
import type { NetworkGrant } from "../sandbox/confine.ts";

/** What a policy says about one request. `require_biometric`: planned like require_approval, approved only with a passkey (core/approval-proof.ts). */
export type PolicyDecisionKind = "allow" | "require_approval" | "require_biometric" | "deny";

/** Strictness order, most permissive first. */
export const STRICTNESS: readonly PolicyDecisionKind[] = ["allow", "require_approval", "require_biometric", "deny"];

/** The stricter of two decisions. */
export function stricter(a: PolicyDecisionKind, b: PolicyDecisionKind): PolicyDecisionKind {
  return STRICTNESS.indexOf(a) >= STRICTNESS.indexOf(b) ? a : b;
}

/**
 * A policy request for action `exec` (the only action policies judge today). Principal: the caller's role,
 * client name (untrusted: the MCP client's own claim) and kernel uid. Resource: the target host as the
 * inventory knows it. Context: the exact command line, the words of every command the risk engine found,
 * the program names, the risk level and the ids of its signals; for a skill launch (skills_execute) also which
 * skill, exact tree and entrypoint (core/policy/cedar-model.ts).
 */
export interface PolicyRequest {
  /** `exec`: a command line; `read`: a read-only catalogue action on a remote host (core/policy/read-request.ts). */
  action: "exec" | "read";
  principal: { role: string; client: string; uid: number | null };
  resource: { host: string; address: string; provider: string; backend: string; tags: string[] };
  context: { command: string; argv: string[]; programs: string[]; shell: string; risk_level: RiskAssessment["risk_level"]; signals: string[]; skill?: SkillLaunchFacts };
}

/** What a policy sees of a skill launch: the skill's name, the digest of its exact tree (`sha256:…`), the entrypoint. */
export interface SkillLaunchFacts {
  name: string;
  digest: string;
  entrypoint: string;
}

/** A PolicyEngine's verdict (ports/policy-engine.ts): the decision, human reasons (from `@reason` annotations or policy ids), the policies that decided. */
export interface PolicyVerdict {
  decision: PolicyDecisionKind;
  reasons: string[];
  policies: string[];
  /** The network a sandboxed command may use, granted by the deciding policy (Cedar `@network`); absent: none. */
  network?: NetworkGrant | undefined;
}

/** How the gate was configured: no policy engine, whether unverified exec is allowed, whether the risk engine is bypassed. */
export interface GateSettings {
  allow_unverified: boolean;
  risk_disabled: boolean;
}

/** The gate's answer: final decision, where it came from, and every reason (risk first, then policy). */
export interface GateDecision {
  decision: PolicyDecisionKind;
  risk_level: RiskAssessment["risk_level"];
  risk_decision: RiskAssessment["decision"];
  /** `source`: the engine's name (`cedar`), or `none` when no configured policy decided. */
  policy: { source: string; decision: PolicyDecisionKind | null; reasons: string[]; policies: string[] };
  reasons: string[];
  /** The network the command may use when it runs sandboxed: the policy's grant, `none` without one. */
  network: NetworkGrant;
}

/**
 * The narrow-only rule for one verdict: critical → deny; otherwise the stricter of the risk engine's decision
 * and the policy's (plan_command without a target).
 */
export function narrow(risk: RiskAssessment, policy: PolicyVerdict): PolicyDecisionKind {
  return risk.risk_level === "critical" ? "deny" : stricter(risk.decision, policy.decision);
}

/**
 * Asks `engine` about `request` and combines its verdict with the risk engine by `gate`. An engine that is not
 * `configured` (the risk-only default) or null counts as no policy.
 */
export function judge(risk: RiskAssessment, engine: PolicyEngine | null, request: PolicyRequest, s: GateSettings): GateDecision {
  return gate(risk, engine?.configured ? { ...engine.decide(request), source: engine.name } : null, s);
}

/**
 * Combines the risk engine and a configured policy's verdict (null: none configured). Rules, in order:
 * 1. risk_level critical → deny, always (neither a policy nor `risk.disabled` lets it run);
 * 2. no policy → deny unless `allow_unverified` (then the risk engine alone decides);
 * 3. otherwise the stricter of the risk engine's decision (ignored when `risk_disabled`) and the policy's.
 */
export function gate(risk: RiskAssessment, policy: (PolicyVerdict & { source: string }) | null, s: GateSettings): GateDecision {
  const riskReasons = risk.signals.length > 0 ? risk.signals.map((x) => `command risk (${x.severity}): ${x.reason}`) : ["command risk: only read-only commands the engine knows"];
  const pol: GateDecision["policy"] = policy
    ? { source: policy.source, decision: policy.decision, reasons: policy.reasons, policies: policy.policies }
    : { source: "none", decision: null, reasons: [], policies: [] };
  const base = { risk_level: risk.risk_level, risk_decision: risk.decision, policy: pol, network: policy?.network ?? "none" };
  if (risk.risk_level === "critical") {
    return { ...base, decision: "deny", reasons: ["critical commands are always refused", ...riskReasons] };
  }
  const fromRisk: PolicyDecisionKind = s.risk_disabled ? "allow" : risk.decision;
  const riskNote = s.risk_disabled ? ["risk.disabled is set: the risk engine's decision is not applied (critical still refused)"] : riskReasons;
  if (!policy) {
    if (!s.allow_unverified) {
      return { ...base, decision: "deny", reasons: ["no policy is configured: exec is refused (set policy.dir, or exec.allow_unverified: true — not for AI clients)", ...riskNote] };
    }
    return { ...base, decision: fromRisk, reasons: ["no policy is configured; exec.allow_unverified lets the risk engine decide alone", ...riskNote] };
  }
  return { ...base, decision: stricter(fromRisk, policy.decision), reasons: [...riskNote, ...policy.reasons.map((r) => `policy: ${r}`)] };
}
