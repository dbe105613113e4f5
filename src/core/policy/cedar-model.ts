/**
 * How a policy request maps onto Cedar (pure data; the adapter hands it to cedar-wasm). Namespace `Hostgate`:
 * principal `Hostgate::Caller` (in `Hostgate::Role::"<role>"`), action `Hostgate::Action::"exec"` (a command
 * line) or `Hostgate::Action::"read"` (a read-only catalogue action on a remote host, issue 20: its context has
 * the same attributes, `command` and `programs` holding the action name, risk low), resource `Hostgate::Host`. The schema below is what policies are validated against when loaded, so a misspelt
 * attribute is a load error instead of a silent non-match.
 *
 * Decisions beyond Cedar's permit/forbid come from annotations on permit policies:
 * `@decision("require_approval")` or `@decision("require_biometric")`; the strictest satisfied permit wins.
 * `@reason("…")` gives the text shown to the caller; `@id("…")` names a policy (default `<file>#<n>`).
 *
 * A skill launch (skills_execute, issue 22) is the same `exec` on the daemon's own host (`Hostgate::Host::"local"`,
 * provider and backend `local`, no tags) by the calling Caller, whose context also carries the optional
 * `skill` (name), `skill_digest` (`sha256:…`) and `entrypoint`: a policy tests `context has skill` before reading
 * them (Cedar's strict validation requires it). Example: examples/policies/30-skills.cedar; docs/skills.md.
 */
import type { PolicyRequest } from "./gate.ts";
import { riskRank } from "../risk-level.ts";

export const CEDAR_SCHEMA = `namespace Hostgate {
  entity Role;
  entity Caller in [Role] { role: String, client: String, uid: Long };
  entity Host { name: String, address: String, provider: String, backend: String, tags: Set<String> };
  action exec appliesTo {
    principal: [Caller],
    resource: [Host],
    context: { command: String, argv: Set<String>, programs: Set<String>, shell: String, risk_level: String, risk_rank: Long, signals: Set<String>, skill?: String, skill_digest?: String, entrypoint?: String }
  };
  action read appliesTo {
    principal: [Caller],
    resource: [Host],
    context: { command: String, argv: Set<String>, programs: Set<String>, shell: String, risk_level: String, risk_rank: Long, signals: Set<String> }
  };
}`;

/** Entity uid in Cedar's JSON form. */
export interface CedarUid {
  type: string;
  id: string;
}

/** The Cedar request (principal, action, resource, context, entities) for a policy request. */
export function cedarRequest(r: PolicyRequest): {
  principal: CedarUid;
  action: CedarUid;
  resource: CedarUid;
  context: Record<string, unknown>;
  entities: { uid: CedarUid; attrs: Record<string, unknown>; parents: CedarUid[] }[];
} {
  const principal = { type: "Hostgate::Caller", id: `${r.principal.role}:${r.principal.uid ?? "unknown"}:${r.principal.client}` };
  const resource = { type: "Hostgate::Host", id: r.resource.host };
  return {
    principal,
    action: { type: "Hostgate::Action", id: r.action },
    resource,
    context: {
      command: r.context.command,
      argv: [...new Set(r.context.argv)],
      programs: [...new Set(r.context.programs)],
      shell: r.context.shell,
      risk_level: r.context.risk_level,
      risk_rank: riskRank(r.context.risk_level),
      signals: [...new Set(r.context.signals)],
      ...(r.context.skill ? { skill: r.context.skill.name, skill_digest: r.context.skill.digest, entrypoint: r.context.skill.entrypoint } : {}),
    },
    entities: [
      { uid: principal, attrs: { role: r.principal.role, client: r.principal.client, uid: r.principal.uid ?? -1 }, parents: [{ type: "Hostgate::Role", id: r.principal.role }] },
      { uid: { type: "Hostgate::Role", id: r.principal.role }, attrs: {}, parents: [] },
      { uid: resource, attrs: { name: r.resource.host, address: r.resource.address, provider: r.resource.provider, backend: r.resource.backend, tags: [...new Set(r.resource.tags)] }, parents: [] },
    ],
  };
}
