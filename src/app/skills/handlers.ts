import { actorOf, type Caller } from "../../core/caller.ts";
import type { Handlers } from "../../ipc/dispatch.ts";
import type { SkillsEnvelope } from "../../ipc/skills.ts";
import { HostgateError } from "../../core/errors.ts";
import type { Gate } from "./deps.ts";
import type { SkillEntries } from "./extension.ts";
import type { SkillsAdminMethod, SkillsAgentMethod, SkillsService } from "./service.ts";

/**
 * The skills side of a daemon as the handlers see it: the gates (decided once at start) and the service,
 * built on first use so a daemon whose skills are never asked for loads none of it (tar, MiniSearch).
 */
export interface SkillsHandle {
  gates: { install: Gate; exec: Gate };
  service(): Promise<SkillsService>;
  /** Stops exec runs (daemon shutdown). */
  close(): void;
}

type SkillsHandlerNames = SkillsAgentMethod | SkillsAdminMethod | "skills_status" | "skills_ext_list" | "skills_ext_get" | "skills_ext_directory";

const unavailable = (method: string): SkillsEnvelope => ({ kind: method.replace(/_/g, "."), ok: false, error: { code: "unavailable", message: "This daemon has no skills service.", hint: "Use a daemon composed with skills (hostgate daemon / embedded)." } });

/** The Skills extension's methods answer values, not envelopes: without a skills service they fail `unavailable`. */
async function entries(handle: SkillsHandle | undefined): Promise<SkillEntries> {
  if (!handle) throw new HostgateError("unavailable", "This daemon has no skills service.", { hint: "Use a daemon composed with skills (hostgate daemon / embedded)." });
  return (await handle.service()).entries;
}

/** One handler per skills method of the table (ipc/methods.ts), each answering the envelope. */
export function skillsHandlers(handle: SkillsHandle | undefined): Pick<Handlers, SkillsHandlerNames> {
  const info = (caller: Caller) => ({ actor: actorOf(caller), role: caller.role, uid: caller.peer?.uid, client: caller.client_name ?? undefined });
  const agent = (m: SkillsAgentMethod) => async (p: unknown, caller: Caller, signal?: AbortSignal): Promise<SkillsEnvelope> =>
    handle ? (await handle.service()).call(m, p, info(caller), signal) : unavailable(m);
  const admin = (m: SkillsAdminMethod) => async (p: unknown, caller: Caller): Promise<SkillsEnvelope> =>
    handle ? (await handle.service()).admin(m, p, actorOf(caller)) : unavailable(m);
  return {
    skills_status: () => handle
      ? { available: true, install: handle.gates.install, exec: handle.gates.exec }
      : { available: false, install: { on: false, reason: "no skills service" }, exec: { on: false, reason: "no skills service" } },
    skills_search: agent("skills_search"),
    skills_route: agent("skills_route"),
    skills_resolve: agent("skills_resolve"),
    skills_inspect: agent("skills_inspect"),
    skills_read: agent("skills_read"),
    skills_diagnose: agent("skills_diagnose"),
    skills_install_plan: agent("skills_install_plan"),
    skills_sync_plan: agent("skills_sync_plan"),
    skills_install_apply: agent("skills_install_apply"),
    skills_sync_apply: agent("skills_sync_apply"),
    skills_execute: agent("skills_execute"),
    skills_ext_list: async (p) => (await entries(handle)).list(p.cursor),
    skills_ext_get: async (p) => (await entries(handle)).get(p.uri),
    skills_ext_directory: async (p) => (await entries(handle)).directory(p.uri, p.cursor),
    skills_grants_add: admin("skills_grants_add"),
    skills_grants_list: admin("skills_grants_list"),
    skills_grants_remove: admin("skills_grants_remove"),
  };
}
