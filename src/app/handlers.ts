import { systemdActions } from "../core/catalogue/actions/systemd.ts";
import type { Caller } from "../core/caller.ts";
import { HostgateError } from "../core/errors.ts";
import { LOCAL_HOST } from "../core/host-id.ts";
import type { Handlers } from "../ipc/dispatch.ts";
import type { CommandAssessment } from "../ipc/plan-command.ts";
import { thisBuild } from "../ipc/prebuilt.ts";
import { PROTOCOL_VERSION } from "../ipc/protocol.ts";
import { approve, pending, reject, show } from "./approve.ts";
import { confirm } from "./revert.ts";
import type { DaemonDeps } from "./deps.ts";
import { describeActions } from "./describe.ts";
import { DEFAULT_EXPOSURE } from "./exposure.ts";
import { findActions } from "./find-actions.ts";
import { doctor } from "./doctor.ts";
import { hostSystemdViews } from "./host-systemd.ts";
import { execute } from "./execute.ts";
import { history } from "./history.ts";
import { consoleLink } from "./console.ts";
import { listPasskeys, revokePasskey } from "./passkeys.ts";
import { plan } from "./plan.ts";
import { queryHosts, readResource } from "./query-hosts.ts";
import { hostsHandlers } from "./hosts-handlers.ts";
import { skillsHandlers } from "./skills/handlers.ts";

const SYSTEMD_ACTIONS = new Set(systemdActions.map((a) => a.name));

/** Optional extras wired by the composition root (the risk engine loads lazily). */
export interface ServiceExtras {
  planCommand?: (input: unknown, caller: Caller) => Promise<CommandAssessment>;
}

/**
 * The daemon's handler for every method of the table (ipc/methods.ts), each given the validated params
 * and the caller. Adding a method there without a handler here is a type error.
 */
export function daemonHandlers(d: DaemonDeps, extras: ServiceExtras): Handlers {
  const simulated = (action: string): boolean => d.facts.backend_type === "mock" && SYSTEMD_ACTIONS.has(action);
  const described = {
    protocol_version: PROTOCOL_VERSION,
    build: thisBuild(),
    host: { hostname: d.hostname, family: d.ctx.family },
    actions: describeActions(d.ctx.family, d.catalogue),
    ...(d.local_unavailable && Object.keys(d.local_unavailable).length > 0 ? { local_unavailable: d.local_unavailable } : {}),
    // What this daemon's gate serves (app/exposure.ts): the front lists its tools by these settings (issue 19).
    exposure: d.exposure ?? DEFAULT_EXPOSURE,
  };
  return {
    describe: () => {
      const hosts = hostSystemdViews(d.hosts.built());
      return hosts.length === 0 ? described : { ...described, hosts };
    },
    find_actions: (p) => findActions(described.actions, d.exposure ?? DEFAULT_EXPOSURE, p, d.local_unavailable),
    query: async (p, caller, signal) => {
      const value = await queryHosts(d, p, caller, signal, d.fanout ?? {});
      if (p.hosts === undefined && (p.host ?? LOCAL_HOST) === LOCAL_HOST && simulated(p.action)) value.meta.simulated = true;
      return value;
    },
    plan: async (p, caller) => {
      const result = await plan(d, p, caller);
      if (result.steps.some((s) => s.host === LOCAL_HOST && simulated(s.action_name))) {
        result.next = `SIMULATED: the systemd backend is the in-memory mock (${d.facts.backend ?? "mock"}); these steps change nothing on this host. ${result.next}`;
      }
      return result;
    },
    execute: (p, caller, _signal, progress) => execute(d, p, caller, progress),
    history: (p) => history(d, p),
    doctor: (_p, caller) => doctor(d, caller),
    audit_verify: async (p) => ({ ...(await d.audit().verify(p.since_seq === undefined ? {} : { since_seq: p.since_seq })) }),
    plan_command: (p, caller) => {
      if (!extras.planCommand) throw new HostgateError("unavailable", "plan_command is not available in this daemon.");
      return extras.planCommand(p, caller);
    },
    resources_list: () => d.resources.list(),
    resource_templates_list: () => d.resources.templates(),
    resource_read: (p, caller, signal) => readResource(d, p.uri, caller, signal),
    pending: (p) => pending(d, p.limit),
    ...hostsHandlers(d),
    ...skillsHandlers(d.skills),
    show: (p, caller) => show(d, p.transaction_id, caller),
    approve: (p, caller) => approve(d, p.transaction_id, caller, p.steps),
    reject: (p, caller) => reject(d, p.transaction_id, caller),
    console_link: (p, caller) => consoleLink(d, p.purpose, caller),
    confirm: (p, caller) => confirm(d, p.transaction_id, caller),
    passkeys_list: () => ({ passkeys: listPasskeys(d) }),
    passkeys_revoke: async (p, caller) => { await revokePasskey(d, p.credential_id, caller); return { credential_id: p.credential_id, revoked: true as const }; },
  };
}
