import type { Server } from "@modelcontextprotocol/server";
import type { Config } from "../config/schema.ts";
import { unwrap, type DaemonClient } from "../ipc/client.ts";
import type { DescribeResult } from "../ipc/protocol.ts";
import { buildServer } from "./register.ts";
import { exposureSettings } from "../config/exposure.ts";
import { assertKnownToolNames, exposeTools, narrowTools, selectTools } from "./toolsets.ts";
import type { ToolSpec } from "./tool-spec.ts";
import { auditVerifyTool } from "./tools/audit-verify.ts";
import { directTool } from "./tools/direct.ts";
import { doctorTool } from "./tools/doctor.ts";
import { executeTool } from "./tools/execute.ts";
import { historyTool } from "./tools/history.ts";
import { planCommandTool } from "./tools/plan-command.ts";
import { planTool } from "./tools/plan.ts";
import { searchHostsTool } from "./tools/search-hosts.ts";
import { listBackendsTool } from "./tools/list-backends.ts";
import { getHostDetailsTool } from "./tools/get-host-details.ts";
import { execOnHostTool } from "./tools/exec-on-host.ts";
import { readOnHostsTool } from "./tools/read-on-hosts.ts";
import { SKILLS_TOOLS } from "./tools/skills/index.ts";
import { findActionsTool } from "./tools/find-actions.ts";
import { readActionTool } from "./tools/read-action.ts";
import { isListed } from "../core/catalogue/surface.ts";
import type { Tracer } from "../core/trace.ts";
import type { ExposureSettings } from "../core/toolsets.ts";

/**
 * The fixed tools every hostgate offers, besides the direct tools of read-only actions. A daemon-backed tool
 * is one file in tools/ (naming its method and toolsets) listed here; see docs/architecture.md. find_actions and
 * read_action reach every catalogue action, listed or not (docs/tool-surface.md).
 */
export const FIXED_TOOLS: readonly ToolSpec[] = [planTool, executeTool, historyTool, doctorTool, auditVerifyTool, planCommandTool, findActionsTool, readActionTool, searchHostsTool, listBackendsTool, getHostDetailsTool, execOnHostTool, readOnHostsTool, ...SKILLS_TOOLS];

/** Front options read once at start: the transport (stdio binds confirm tokens to the connection) and the skills gates asked for. */
export interface FrontOptions {
  transport?: "stdio" | "http";
  gates?: { install: boolean; exec: boolean };
  /** Where gate warnings go (stderr). */
  warn?: (line: string) => void;
  /** The daemon's catalogue when the front already knows it (a deferred embedded daemon of this build): not asked then. */
  described?: DescribeResult | undefined;
  /** This process's tracer (issue 25; daemon/tracing.ts via the CLI). Absent: tracing off. */
  tracer?: Tracer | undefined;
  /**
   * Where the exposure settings the tools are listed by are written, for the answer to a call of a hidden tool
   * (cli/front-client.ts FrontClient.configOf: a system daemon's own configuration). Absent: hostgate's configuration.
   */
  configOf?: string | undefined;
}

/**
 * What the front asks for: a gate is wanted when its flag was given at start (`--allow-install`, `--allow-exec`)
 * or the configuration turns it on (`skills.allow_install`, `skills.allow_exec`: issue 22, the config does what
 * the flags do). `from` names where each wish came from, for the warning when the daemon cannot honour it.
 */
export function wantedGates(flags: { install: boolean; exec: boolean } | undefined, config: Pick<Config, "skills">): { install: boolean; exec: boolean; from: { install: string; exec: string } } {
  const f = flags ?? { install: false, exec: false };
  const from = (g: "install" | "exec"): string => (f[g] ? `--allow-${g}` : `skills.allow_${g}`);
  return { install: f.install || config.skills.allow_install, exec: f.exec || config.skills.allow_exec, from: { install: from("install"), exec: from("exec") } };
}

/**
 * Drops the gated skills tools unless their gate was asked for at start (flag or config, {@link wantedGates})
 * AND the daemon has the gate on (it enforces it anyway); a wish the daemon cannot honour warns
 * `--allow-install has no effect: <reason>` (or `skills.allow_install has no effect: …`).
 * Returns the kept tools and the gate states for the start notice.
 */
export async function applySkillsGates(tools: readonly ToolSpec[], client: DaemonClient, opts: FrontOptions, config: Pick<Config, "skills">): Promise<{ tools: ToolSpec[]; gates: { install: boolean; exec: boolean } }> {
  const want = wantedGates(opts.gates, config);
  if (!want.install && !want.exec) return { tools: tools.filter((t) => (t as { gate?: string }).gate === undefined), gates: { install: false, exec: false } };
  const r = await client.call("skills_status", {});
  const status = r.ok ? r.value : { available: false, install: { on: false, reason: r.error.message }, exec: { on: false, reason: r.error.message } };
  const on = { install: want.install && status.install.on, exec: want.exec && status.exec.on };
  for (const g of ["install", "exec"] as const) {
    if (want[g] && !status[g].on) opts.warn?.(`${want.from[g]} has no effect: ${status[g].reason}`);
  }
  return { tools: tools.filter((t) => { const gate = (t as { gate?: "install" | "exec" }).gate; return gate === undefined || on[gate]; }), gates: on };
}

/**
 * Every tool this front can offer for the daemon's catalogue (asked unless given), before exposure rules; a direct
 * tool whose action cannot answer on the daemon's own host says so in its description (describe's local_unavailable).
 */
export async function allTools(client: DaemonClient, known?: DescribeResult): Promise<ToolSpec[]> {
  const described = known ?? unwrap(await client.call("describe", {}));
  const unavailable = described.local_unavailable ?? {};
  return [...FIXED_TOOLS, ...described.actions.map((a) => directTool(a, unavailable[a.action])).filter((t): t is ToolSpec => t !== null)];
}

/**
 * Splits the offered tools into those tools/list lists and the direct tools it leaves out (core/catalogue/surface.ts
 * `isListed`: reads not listed by default, reached through find_actions + read_action). Fixed tools are always listed.
 * The unlisted ones stay callable by name (a client that lets its model call an unlisted name; the daemon judges
 * every call as for a listed one). Nothing here decides safety: it only spends or saves context.
 */
export function splitListed(offered: readonly ToolSpec[], settings: ExposureSettings): { listed: ToolSpec[]; unlisted: ToolSpec[] } {
  const fixed = new Set(FIXED_TOOLS);
  const listed: ToolSpec[] = [];
  const unlisted: ToolSpec[] = [];
  for (const t of offered) {
    const action = (t as { action?: string }).action;
    if (fixed.has(t) || action === undefined || isListed(action, t.name, t.toolsets, settings)) listed.push(t);
    else unlisted.push(t);
  }
  return { listed, unlisted };
}

/**
 * The exposure settings the front lists its tools by: the daemon's (its `describe` says them, issue 19: the daemon
 * decides what is offered, so the list holds only tools its gate serves), narrowed afterwards by this front's own
 * configuration ({@link narrowTools}). A daemon that does not say (a hostgate older than the field): this front's own,
 * with a warning saying so.
 */
export function listedExposure(described: DescribeResult, own: ExposureSettings, warn: ((line: string) => void) | undefined): ExposureSettings {
  const daemon = described.exposure;
  if (!daemon) {
    warn?.("the daemon did not say which tools it offers (a hostgate older than that answer): tools/list follows this front's configuration (tools.*, exec.enabled); a tool the daemon hides answers tool_disabled");
    return own;
  }
  return daemon;
}

/**
 * The tools this front's configuration would offer that the daemon does not (`all` judged by `own`, then by the
 * daemon's `settings`): listing them is not the front's to do, so `warn` names them and where to turn them on.
 */
function warnWidening(all: readonly ToolSpec[], own: ExposureSettings, settings: ExposureSettings, warn: ((line: string) => void) | undefined): void {
  if (!warn || settings === own) return;
  const daemonOffers = new Set(selectTools(all, settings));
  const wanted = selectTools(all, own).filter((t) => !daemonOffers.has(t)).map((t) => t.name);
  if (wanted.length > 0) warn(`this front's configuration turns on ${wanted.join(", ")}, which the daemon does not offer: not listed (a front may hide what its daemon offers, never add; set them in the daemon's configuration)`);
}

/**
 * Resolves the visible tools once (config is read once at start) and returns a factory that builds a
 * fresh MCP server per connection (stdio) or per request (stateless HTTP), so no state is shared between
 * clients (corpus cases M028, M029). The tools listed are those the daemon offers ({@link listedExposure}) that this
 * front's own configuration does not hide ({@link narrowTools}). A call
 * to a tool that exists but is hidden is answered with why and how to turn it on. Throws when this front's
 * exposure config names unknown tools (or the daemon cannot describe its catalogue). `tools` is what tools/list lists.
 */
export async function createServerFactory(client: DaemonClient, config: Config, opts: FrontOptions = {}): Promise<{ factory: () => Server; tools: ToolSpec[]; gates: { install: boolean; exec: boolean } }> {
  const described = opts.described ?? unwrap(await client.call("describe", {}));
  const all = await allTools(client, described);
  const own = exposureSettings(config);
  // This front's config names are checked against every tool, gated ones included, so a config stays valid
  // whatever the flags; the daemon's settings are its own to check.
  assertKnownToolNames(all, own);
  const settings = listedExposure(described, own, opts.warn);
  warnWidening(all, own, settings, opts.warn);
  const { tools: daemonOffers, hidden } = exposeTools(all, settings);
  const offered = settings === own ? daemonOffers : narrowTools(daemonOffers, own, hidden);
  const { listed: selected, unlisted } = splitListed(offered, settings);
  const { tools, gates } = await applySkillsGates(selected, client, opts, config);
  for (const t of selected) {
    const gate = (t as { gate?: "install" | "exec" }).gate;
    if (gate !== undefined && !tools.includes(t)) hidden.set(t.name, { reason: `it needs the skills ${gate} gate`, fix: `set skills.allow_${gate}: true (with a system daemon, in the daemon's configuration too; or start hostgate mcp with --allow-${gate})` });
  }
  const session = opts.transport === "stdio";
  // The Skills extension (SEP-2640) is offered with the skills toolset: a config that hides the skills tools hides it too.
  const skills = tools.some((t) => t.toolsets.includes("skills"));
  const traced = opts.tracer ? { tracer: opts.tracer, transport: session ? "pipe" as const : "tcp" as const } : {};
  return { factory: () => buildServer(tools, client, { session, hidden, unlisted, skills, ...traced, ...(opts.configOf ? { configOf: opts.configOf } : {}) }), tools, gates };
}
