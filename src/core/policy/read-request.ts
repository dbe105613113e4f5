import { HostgateError } from "../errors.ts";
import type { PolicyEngine } from "../../ports/policy-engine.ts";
import { policyResource, type PolicyHost, type PolicyPrincipal } from "./exec-request.ts";
import type { PolicyRequest } from "./gate.ts";

/**
 * The `read` policy request (issue 20): one read-only catalogue action (e.g. `GetDiskUsage`) on one remote
 * host, for one caller. The host is seen as exec sees it (the identified machine when there is one, so an
 * alias or an address is judged like the tagged inventory entry). The context has exec's attributes so one
 * policy file validates for both actions: `command` and `programs` hold the action name, no argv, risk low.
 */
export function readPolicyRequest(actionName: string, who: PolicyPrincipal, host: PolicyHost): PolicyRequest {
  return {
    action: "read",
    principal: { role: who.role, client: who.client, uid: who.uid },
    resource: policyResource(host),
    context: { command: actionName, argv: [], programs: [actionName], shell: "", risk_level: "low", signals: [] },
  };
}

/**
 * Whether a read of a remote host may run: deny by default. No configured policy (null or the risk-only
 * default) → refused; the policy's verdict must be `allow` (a read cannot wait for an approval: anything
 * stricter refuses). Throws HostgateError `refused` naming the host, the action and the reasons, with the
 * policy to write in the hint (docs/hosts.md).
 */
export function assertReadAllowed(policy: PolicyEngine | null, request: PolicyRequest): { policies: string[]; reasons: string[] } {
  // A name no inventory backend lists is judged as a literal host (no tags): say so, it is the likelier mistake.
  const literal = request.resource.backend === "literal"
    ? ` ${request.resource.host} is in no inventory (search_hosts lists the known hosts), so it is judged as a literal host with no tags.`
    : "";
  const hint = `${literal ? "Check the name with search_hosts. " : ""}Reading a remote host needs a Cedar permit for action "read" on it (docs/hosts.md), e.g. permit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };`;
  if (!policy || !policy.configured) {
    throw new HostgateError("refused", `${request.context.command} on ${request.resource.host}: no policy is configured, and reading a remote host needs one (deny by default).${literal}`, { hint: `Set policy.dir. ${hint}`, details: { decision: "deny", host: request.resource.host, action: request.context.command, policy: { source: "none", policies: [], reasons: [] } } });
  }
  const v = policy.decide(request);
  if (v.decision !== "allow") {
    // The engine's reasons speak of exec (one policy set serves both actions): name the read plainly instead.
    const why = v.policies.length > 0 ? ` (deciding: ${v.policies.join(", ")})` : " (no policy permits action \"read\" on this host for this caller)";
    throw new HostgateError("refused", `${request.context.command} on ${request.resource.host}: the policy says ${v.decision}${why}.${literal}`, { hint, details: { decision: "deny", host: request.resource.host, action: request.context.command, policy: { source: policy.name, decision: v.decision, policies: v.policies, reasons: v.reasons } } });
  }
  return { policies: v.policies, reasons: v.reasons };
}
