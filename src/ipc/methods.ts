import { z } from "zod";
import type { Role } from "../core/caller.ts";
import type { ToolExposure } from "../core/toolsets.ts";
import { FindActionsInputSchema, FindActionsResultSchema } from "./find-actions.ts";
import { AssessCommandInputSchema, CommandAssessmentSchema } from "./plan-command.ts";
import { ExecOnHostAnswerSchema, ExecOnHostInputSchema, GetHostDetailsInputSchema, GetHostDetailsOutputSchema, ListBackendsInputSchema, ListBackendsOutputSchema, SearchHostsInputSchema, SearchHostsOutputSchema } from "./hosts.ts";
import {
  SkillsDiagnoseInput, SkillsEnvelopeSchema, SkillsExecuteInput, SkillsGrantInput, SkillsInstallApplyInput, SkillsInstallPlanInput, SkillsReadInput,
  SkillsRefInput, SkillsRouteInput, SkillsSearchInput, SkillsStatusSchema, SkillsSyncApplyInput, SkillsSyncPlanInput,
} from "./skills.ts";
import { SkillsExtDirectoryParams, SkillsExtDirectoryResult, SkillsExtGetParams, SkillsExtGetResult, SkillsExtListParams, SkillsExtListResult } from "./skills-ext.ts";
import {
  ApproveInputSchema, ApproveResultSchema, DescribeResultSchema, DoctorResultSchema, EXECUTE_EXAMPLE, ExecuteInputSchema, ExecuteResultSchema, HistoryInputSchema, HistoryResultSchema,
  PlanInputSchema, PlanResultSchema, QueryParamsSchema, QueryValueSchema, ResourceContentsSchema, ResourceEntrySchema, ResourceTemplateEntrySchema,
  PendingInputSchema, PendingResultSchema, RejectResultSchema, ConfirmResultSchema, ShowResultSchema, TxIdInputSchema, ConsoleLinkInputSchema, ConsoleLinkResultSchema,
} from "./protocol.ts";
import { PasskeysListInputSchema, PasskeysListResultSchema, PasskeysRevokeInputSchema, PasskeysRevokeResultSchema } from "./passkeys.ts";

/**
 * One daemon method: where it is served, who may call it, its params and its result. The table below is the
 * single source: ipc/server.ts validates and routes with it, the socket client and the in-process client
 * (app/daemon-service.ts) are typed by it, and the daemon must supply one handler per entry (a missing one is
 * a type error in app/handlers.ts).
 * - `socket`: `agent` methods are served on agent.sock and tcp://; `admin` methods only on admin.sock, so a
 *   receipt can never be minted through the socket the MCP front uses.
 * - `min_role`: the least role that may call it (enforced by ipc/dispatch.ts for every caller).
 * - `params`: the wire params (validated before the handler runs; `undefined` params read as `{}`).
 * - `result`: the value inside `{ ok: true, value }` (domain errors are `{ ok: false, error }`).
 * - `tool`: for a method behind a model-facing tool of the same name, its exposure groups, whether it is read-only
 *   and the switch of an off-by-default tool. The MCP tool takes its groups from here (mcp/tools/fixed.ts) and the
 *   daemon refuses the method when the exposure rule (core/toolsets.ts `exposureOf`) hides the tool (`tool_disabled`),
 *   so the list and the daemon agree. Absent: not a tool (describe, resources, skills_status), always served.
 *   `query` is judged per action, by the action's own groups (app/exposure.ts).
 */
export interface MethodDef<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType, S extends "agent" | "admin" = "agent" | "admin"> {
  socket: S;
  min_role: Role;
  params: P;
  result: R;
  description: string;
  /** What a valid call's params look like: the hint of an `invalid_params` answer (dispatch and the MCP tool). */
  example?: string;
  /** The model-facing tool behind this method (see above). */
  tool?: ToolExposure;
}

const method = <S extends "agent" | "admin", P extends z.ZodType, R extends z.ZodType>(def: MethodDef<P, R, S>): MethodDef<P, R, S> => def;
const NoParams = z.object({}).strict();
/** Exposure of a read-only tool in `group`, and of one that changes something. */
const reads = (group: ToolExposure["toolsets"][number]): ToolExposure => ({ toolsets: [group], read_only: true });
const changes = (group: ToolExposure["toolsets"][number]): ToolExposure => ({ toolsets: [group], read_only: false });

/** The daemon protocol's methods (PROTOCOL_VERSION in protocol.ts). */
export const METHODS = {
  describe: method({ socket: "agent", min_role: "observer", params: NoParams, result: DescribeResultSchema, description: "Actions offered on the local host and its identity." }),
  find_actions: method({ socket: "agent", min_role: "observer", params: FindActionsInputSchema, result: FindActionsResultSchema, description: "The offered catalogue actions with their parameter schemas (issue 24).", example: '{"toolset":"accounts"}', tool: reads("catalogue") }),
  query: method({ socket: "agent", min_role: "observer", params: QueryParamsSchema, result: QueryValueSchema, description: "Run one read-only action on a host." }),
  plan: method({ socket: "agent", min_role: "operator", params: PlanInputSchema, result: PlanResultSchema, description: "Turn an intent or explicit steps into planned transactions.", tool: changes("approval") }),
  execute: method({ socket: "agent", min_role: "operator", params: ExecuteInputSchema, result: ExecuteResultSchema, description: "Run approved transactions with their plan's receipt, in plan order.", example: EXECUTE_EXAMPLE, tool: changes("approval") }),
  history: method({ socket: "agent", min_role: "observer", params: HistoryInputSchema, result: HistoryResultSchema, description: "Recent audit-chain entries, filtered.", tool: reads("audit") }),
  doctor: method({ socket: "agent", min_role: "observer", params: NoParams, result: DoctorResultSchema, description: "Health checks of the daemon.", tool: reads("audit") }),
  audit_verify: method({ socket: "agent", min_role: "observer", params: z.object({ since_seq: z.number().int().min(0).optional() }).strict(), result: z.record(z.string(), z.unknown()), description: "Verify the audit chain.", tool: reads("audit") }),
  plan_command: method({ socket: "agent", min_role: "observer", params: AssessCommandInputSchema, result: CommandAssessmentSchema, description: "Judge a shell command line (risk engine + policy).", tool: reads("risk") }),
  resources_list: method({ socket: "agent", min_role: "observer", params: NoParams, result: z.array(ResourceEntrySchema), description: "Concrete resources of every registered scheme." }),
  resource_templates_list: method({ socket: "agent", min_role: "observer", params: NoParams, result: z.array(ResourceTemplateEntrySchema), description: "Resource templates of every registered scheme." }),
  resource_read: method({ socket: "agent", min_role: "observer", params: z.object({ uri: z.string().min(1).max(2048) }).strict(), result: ResourceContentsSchema, description: "Read one resource, dispatched by URI scheme." }),
  pending: method({ socket: "admin", min_role: "admin", params: PendingInputSchema, result: PendingResultSchema, description: "Plans waiting for a human (`hostgate pending`), newest first, with their steps." }),
  search_hosts: method({ socket: "agent", min_role: "observer", params: SearchHostsInputSchema, result: SearchHostsOutputSchema, description: "Search every inventory backend in parallel.", tool: reads("hosts") }),
  list_backends: method({ socket: "agent", min_role: "observer", params: ListBackendsInputSchema, result: ListBackendsOutputSchema, description: "Configured inventory backends.", tool: reads("hosts") }),
  get_host_details: method({ socket: "agent", min_role: "observer", params: GetHostDetailsInputSchema, result: GetHostDetailsOutputSchema, description: "One host's record and capabilities.", tool: reads("hosts") }),
  exec_on_host: method({ socket: "agent", min_role: "operator", params: ExecOnHostInputSchema, result: ExecOnHostAnswerSchema, description: "Run a shell command on inventory hosts over SSH, gated by the risk engine and the policy.", tool: { ...changes("hosts"), off_by_default: "exec.enabled" } }),
  // Skills (issue 11): every answer is the skills envelope (ipc/skills.ts), errors included, so the tools and
  // `hostgate skills … --json` print the same thing.
  skills_status: method({ socket: "agent", min_role: "observer", params: NoParams, result: SkillsStatusSchema, description: "Which skills gates this daemon has on, and why." }),
  skills_search: method({ socket: "agent", min_role: "observer", params: SkillsSearchInput, result: SkillsEnvelopeSchema, description: "Ranked full-text search over local skills.", tool: reads("skills") }),
  skills_route: method({ socket: "agent", min_role: "observer", params: SkillsRouteInput, result: SkillsEnvelopeSchema, description: "Route an intent to the best local skill.", tool: reads("skills") }),
  skills_resolve: method({ socket: "agent", min_role: "observer", params: SkillsRefInput, result: SkillsEnvelopeSchema, description: "Resolve a skill reference to an exact digest.", tool: reads("skills") }),
  skills_inspect: method({ socket: "agent", min_role: "observer", params: SkillsRefInput, result: SkillsEnvelopeSchema, description: "Manifest, files, digest and entrypoints of a skill.", tool: reads("skills") }),
  skills_read: method({ socket: "agent", min_role: "observer", params: SkillsReadInput, result: SkillsEnvelopeSchema, description: "One file of a skill (≤ 256 KiB a call).", tool: reads("skills") }),
  skills_diagnose: method({ socket: "agent", min_role: "observer", params: SkillsDiagnoseInput, result: SkillsEnvelopeSchema, description: "What is not offered and why.", tool: reads("skills") }),
  skills_install_plan: method({ socket: "agent", min_role: "observer", params: SkillsInstallPlanInput, result: SkillsEnvelopeSchema, description: "Plan an install; mints a confirm token.", tool: reads("skills") }),
  skills_sync_plan: method({ socket: "agent", min_role: "observer", params: SkillsSyncPlanInput, result: SkillsEnvelopeSchema, description: "Plan a locked sync; mints a confirm token.", tool: reads("skills") }),
  skills_install_apply: method({ socket: "agent", min_role: "operator", params: SkillsInstallApplyInput, result: SkillsEnvelopeSchema, description: "Apply a planned install with its confirm token.", tool: changes("skills") }),
  skills_sync_apply: method({ socket: "agent", min_role: "operator", params: SkillsSyncApplyInput, result: SkillsEnvelopeSchema, description: "Apply a planned sync with its confirm token.", tool: changes("skills") }),
  skills_execute: method({ socket: "agent", min_role: "operator", params: SkillsExecuteInput, result: SkillsEnvelopeSchema, description: "Run a granted entrypoint of a digest-pinned skill.", tool: changes("skills") }),
  skills_ext_list: method({ socket: "agent", min_role: "observer", params: SkillsExtListParams, result: SkillsExtListResult, description: "One page of SEP-2640 skill entries (skills/list): local skills with per-file digests." }),
  skills_ext_get: method({ socket: "agent", min_role: "observer", params: SkillsExtGetParams, result: SkillsExtGetResult, description: "The SEP-2640 entry of one skill by its SKILL.md URI (skills/get), read from disk now." }),
  skills_ext_directory: method({ socket: "agent", min_role: "observer", params: SkillsExtDirectoryParams, result: SkillsExtDirectoryResult, description: "The direct children of a directory of a skill (resources/directory/read)." }),
  skills_grants_add: method({ socket: "admin", min_role: "admin", params: SkillsGrantInput, result: SkillsEnvelopeSchema, description: "Grant one entrypoint of one exact skill tree to skills_execute." }),
  skills_grants_list: method({ socket: "admin", min_role: "admin", params: NoParams, result: SkillsEnvelopeSchema, description: "List exec grants." }),
  skills_grants_remove: method({ socket: "admin", min_role: "admin", params: SkillsGrantInput, result: SkillsEnvelopeSchema, description: "Revoke an exec grant." }),
  show: method({ socket: "admin", min_role: "admin", params: TxIdInputSchema, result: ShowResultSchema, description: "What `hostgate approve` shows before asking: every step of the plan." }),
  approve: method({ socket: "admin", min_role: "admin", params: ApproveInputSchema, result: ApproveResultSchema, description: "Approve every step of a plan at once and mint its one receipt." }),
  reject: method({ socket: "admin", min_role: "admin", params: TxIdInputSchema, result: RejectResultSchema, description: "Reject every planned step of a plan." }),
  console_link: method({ socket: "admin", min_role: "admin", params: ConsoleLinkInputSchema, result: ConsoleLinkResultSchema, description: "Start the approval console if needed and mint a one-time login or passkey-enrollment link (`hostgate console`)." }),
  confirm: method({ socket: "admin", min_role: "admin", params: TxIdInputSchema, result: ConfirmResultSchema, description: "Keep an applied change that reverts unless confirmed within its window (issue 24)." }),
  passkeys_list: method({ socket: "admin", min_role: "admin", params: PasskeysListInputSchema, result: PasskeysListResultSchema, description: "The enrolled (active) passkeys (`hostgate console passkeys`)." }),
  passkeys_revoke: method({ socket: "admin", min_role: "admin", params: PasskeysRevokeInputSchema, result: PasskeysRevokeResultSchema, description: "Revoke a passkey: it can no longer approve (`hostgate console revoke <id>`)." }),
} as const satisfies Record<string, MethodDef>;

/** Every method name. */
export type MethodName = keyof typeof METHODS;
/** Methods served on the agent socket (and tcp://). */
export type AgentMethod = { [M in MethodName]: (typeof METHODS)[M]["socket"] extends "agent" ? M : never }[MethodName];
/** Methods served on the admin socket only. */
export type AdminMethod = Exclude<MethodName, AgentMethod>;
/** What a caller passes (before defaults). */
export type ParamsIn<M extends MethodName> = z.input<(typeof METHODS)[M]["params"]>;
/** What a handler receives (after validation and defaults). */
export type ParamsOf<M extends MethodName> = z.output<(typeof METHODS)[M]["params"]>;
/** What a method answers with on success. */
export type ResultOf<M extends MethodName> = z.output<(typeof METHODS)[M]["result"]>;

/** Whether `name` is a method of the table (own property, so `__proto__` and friends are not). */
export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(METHODS, name);
}
