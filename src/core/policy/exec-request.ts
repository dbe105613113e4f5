import type { RiskAssessment } from "../risk/index.ts";
import type { PolicyRequest } from "./gate.ts";

/** Who asks, as policies see it: role, the client's self-reported name (untrusted), the kernel uid (null over TCP). */
export interface PolicyPrincipal {
  role: string;
  client: string;
  uid: number | null;
}

/**
 * The host as policies see it: an inventory record's name, address, provider, backend and tags. When target
 * resolution identified the machine (`machine`, core/inventory/identity.ts), policies see that machine
 * instead of the name the caller used: its inventory name, provider, backend and tags, and the normalised
 * address it dials — so an ssh_config alias, an IP spelling or a second backend's entry is judged like the
 * tagged inventory entry of the same machine (issue 19), and an unlisted host has backend `literal`.
 */
export interface PolicyHost {
  name: string;
  primary_ip: string;
  provider: string;
  backend: string;
  tags: readonly string[];
  machine?: { name: string; address: string; provider: string; backend: string; tags: readonly string[] } | undefined;
}

/**
 * The policy's resource for a host: the identified machine when there is one (so an alias or an address is
 * judged as the tagged inventory entry it is), else the host as named. Shared by the `exec` and `read` requests.
 */
export function policyResource(host: PolicyHost): PolicyRequest["resource"] {
  const m = host.machine;
  return m
    ? { host: m.name, address: m.address, provider: m.provider, backend: m.backend, tags: [...m.tags] }
    : { host: host.name, address: host.primary_ip, provider: host.provider, backend: host.backend, tags: [...host.tags] };
}

/**
 * Builds the `exec` policy request for one command on one host from the risk engine's assessment: `argv` is
 * every word of every command found (static words only, as the engine normalised them), `programs` their names.
 */
export function execPolicyRequest(a: RiskAssessment, command: string, shell: string, who: PolicyPrincipal, host: PolicyHost): PolicyRequest {
  return {
    action: "exec",
    principal: { role: who.role, client: who.client, uid: who.uid },
    resource: policyResource(host),
    context: {
      command,
      argv: a.commands.flatMap((c) => c.argv),
      programs: a.commands.map((c) => c.name),
      shell,
      risk_level: a.risk_level,
      signals: a.signals.map((s) => s.id),
    },
  };
}
