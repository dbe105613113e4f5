import { canonicalJson } from "../../core/audit/canonical.ts";
import { HostgateError, toHostgateError, describeIssues } from "../../core/errors.ts";
import { LIMITS, findControlCharacter, utf8Length } from "../../core/limits.ts";
import { ConfirmBook, sessionBinding } from "../../core/skills/confirm.ts";
import {
  SkillsDiagnoseInput, SkillsExecuteInput, SkillsGrantInput, SkillsInstallApplyInput, SkillsInstallPlanInput, SkillsReadInput, SkillsRefInput,
  SkillsRouteInput, SkillsSearchInput, SkillsSyncApplyInput, SkillsSyncPlanInput, type SkillsEnvelope,
} from "../../ipc/skills.ts";
import { SkillCatalog } from "./catalog.ts";
import type { SkillsDeps } from "./deps.ts";
import { SkillEntries } from "./extension.ts";
import { execute, grantAdd, grantList, grantRemove } from "./exec.ts";
import { installApply, installPlan, syncApply, syncPlan } from "./install.ts";
import { diagnose, inspect, read, resolve, route, search, type Answer } from "./read.ts";

/** Who calls a skills method: kernel identity and client name (from the daemon's Caller), for binding and audit. */
export interface SkillsCallerInfo {
  actor: string;
  /** The caller's role on the daemon (observer | operator | admin): the principal a launch policy judges. */
  role?: string | undefined;
  uid?: number | undefined;
  client?: string | undefined;
}

/** The agent-side skills methods; the names are the MCP tool names. */
export const SKILLS_AGENT_METHODS = [
  "skills_search", "skills_route", "skills_resolve", "skills_inspect", "skills_read", "skills_diagnose",
  "skills_install_plan", "skills_sync_plan", "skills_install_apply", "skills_sync_apply", "skills_execute",
] as const;
export type SkillsAgentMethod = (typeof SKILLS_AGENT_METHODS)[number];
/** Admin-socket methods (a model can never reach them). */
export const SKILLS_ADMIN_METHODS = ["skills_grants_add", "skills_grants_list", "skills_grants_remove"] as const;
export type SkillsAdminMethod = (typeof SKILLS_ADMIN_METHODS)[number];

const SCHEMAS = {
  skills_search: SkillsSearchInput, skills_route: SkillsRouteInput, skills_resolve: SkillsRefInput, skills_inspect: SkillsRefInput,
  skills_read: SkillsReadInput, skills_diagnose: SkillsDiagnoseInput, skills_install_plan: SkillsInstallPlanInput, skills_sync_plan: SkillsSyncPlanInput,
  skills_install_apply: SkillsInstallApplyInput, skills_sync_apply: SkillsSyncApplyInput, skills_execute: SkillsExecuteInput,
  skills_grants_add: SkillsGrantInput, skills_grants_list: SkillsDiagnoseInput, skills_grants_remove: SkillsGrantInput,
} as const;

/** `skills_search` → `skills.search`; `skills_grants_add` → `skills.grants.add`. */
export const kindOf = (method: string): string => method.replace(/_/g, ".");

/** Wraps an answer or an error as the envelope; an answer over 1 MiB becomes `answer_too_large`. */
export function envelope(kind: string, result: Answer | HostgateError): SkillsEnvelope {
  if (result instanceof HostgateError) {
    return { kind, ok: false, error: { code: result.code, message: result.message, ...(result.hint ? { hint: result.hint } : {}), ...(result.details ? { details: result.details } : {}) } };
  }
  const env: SkillsEnvelope = { kind, ok: true, data: result.data, untrusted: result.untrusted, provenance: result.provenance, ...(result.confirm ? { confirm: result.confirm } : {}) };
  const size = utf8Length(JSON.stringify(env));
  if (size > LIMITS.answerBytes) {
    return envelope(kind, new HostgateError("answer_too_large", `The answer is ${size} bytes; the limit is 1 MiB.`, { hint: "Narrow it: a lower limit for search, an offset for read, or one skill at a time." }));
  }
  return env;
}

/**
 * The skills use cases behind one entry point per side (agent and admin): validates arguments (64 KiB cap,
 * no control characters, the wire schema), binds confirm tokens to the caller, and answers the envelope.
 * Never throws: every failure is an error envelope with a stable code.
 */
export class SkillsService {
  readonly catalog: SkillCatalog;
  readonly confirm: ConfirmBook;
  /** The MCP Skills extension's entries, directories and file reads (SEP-2640). */
  readonly entries: SkillEntries;

  constructor(readonly deps: SkillsDeps) {
    this.catalog = new SkillCatalog(deps);
    this.entries = new SkillEntries(this.catalog, deps);
    this.confirm = new ConfirmBook(deps.crypto, () => deps.clock.now());
  }

  async call(method: SkillsAgentMethod, raw: unknown, caller: SkillsCallerInfo, signal?: AbortSignal): Promise<SkillsEnvelope> {
    const kind = kindOf(method);
    try {
      const args = parse(method, raw) as Record<string, unknown>;
      const c = {
        actor: caller.actor,
        binding: sessionBinding({ session: args.session as string | undefined, uid: caller.uid, client: caller.client }),
        who: { role: caller.role ?? "observer", client: caller.client ?? "", uid: caller.uid ?? null },
      };
      const d = this.deps;
      const cat = this.catalog;
      switch (method) {
        case "skills_search": return envelope(kind, await search(cat, SkillsSearchInput.parse(args)));
        case "skills_route": return envelope(kind, await route(cat, SkillsRouteInput.parse(args)));
        case "skills_resolve": return envelope(kind, await resolve(cat, SkillsRefInput.parse(args)));
        case "skills_inspect": return envelope(kind, await inspect(cat, d, SkillsRefInput.parse(args)));
        case "skills_read": return envelope(kind, await read(cat, SkillsReadInput.parse(args)));
        case "skills_diagnose": return envelope(kind, await diagnose(cat, d));
        case "skills_install_plan": return envelope(kind, await installPlan(cat, d, this.confirm, c, SkillsInstallApplyInput.parse(args)));
        case "skills_sync_plan": return envelope(kind, await syncPlan(cat, d, this.confirm, c, SkillsSyncApplyInput.parse(args)));
        case "skills_install_apply": return envelope(kind, await installApply(cat, d, this.confirm, c, SkillsInstallApplyInput.parse(args)));
        case "skills_sync_apply": return envelope(kind, await syncApply(cat, d, this.confirm, c, SkillsSyncApplyInput.parse(args)));
        case "skills_execute": return envelope(kind, await execute(cat, d, c, SkillsExecuteInput.parse(args), signal));
      }
    } catch (err) {
      return envelope(kind, toHostgateError(err));
    }
  }

  async admin(method: SkillsAdminMethod, raw: unknown, actor: string): Promise<SkillsEnvelope> {
    const kind = kindOf(method);
    try {
      const args = parse(method, raw);
      switch (method) {
        case "skills_grants_add": return envelope(kind, await grantAdd(this.catalog, this.deps, actor, SkillsGrantInput.parse(args)));
        case "skills_grants_list": return envelope(kind, await grantList(this.deps));
        case "skills_grants_remove": return envelope(kind, await grantRemove(this.deps, actor, SkillsGrantInput.parse(args)));
      }
    } catch (err) {
      return envelope(kind, toHostgateError(err));
    }
  }

  /** Stops every exec run (daemon shutdown, or the front's connection closed). */
  close(): void {
    this.deps.exec?.runner.killAll();
  }
}

function parse(method: keyof typeof SCHEMAS, raw: unknown): unknown {
  const value = raw ?? {};
  let size: number;
  try {
    size = utf8Length(canonicalJson(value));
  } catch {
    throw new HostgateError("invalid_params", "Arguments must be a JSON object of strings, integers, booleans and lists.");
  }
  if (size > LIMITS.argumentBytes) throw new HostgateError("arguments_too_large", `Arguments are ${size} bytes; the limit is 64 KiB.`);
  const control = findControlCharacter(value);
  if (control) throw new HostgateError("invalid_params", `${control} contains a control character; remove it.`);
  const r = SCHEMAS[method].safeParse(value);
  if (!r.success) throw new HostgateError("invalid_params", `Invalid arguments for ${method}: ${describeIssues(r.error, "arguments")}.`, { hint: "The tool's inputSchema lists the accepted values." });
  return r.data;
}
