import type { Server } from "@modelcontextprotocol/server";
import type { Config } from "../config/schema.ts";
import { unwrap, type DaemonClient } from "../ipc/client.ts";
import { buildServer } from "./register.ts";
import { selectTools } from "./toolsets.ts";
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

/**
 * The fixed tools every hostgate offers, besides one direct tool per read-only action. A daemon-backed tool
 * is one file in tools/ (naming its method and toolsets) listed here; see docs/architecture.md.
 */
export const FIXED_TOOLS: readonly ToolSpec[] = [planTool, executeTool, historyTool, doctorTool, auditVerifyTool, planCommandTool, searchHostsTool, listBackendsTool, getHostDetailsTool, execOnHostTool];

/** Every tool this front can offer for the daemon's catalogue, before exposure rules. */
export async function allTools(client: DaemonClient): Promise<ToolSpec[]> {
  const described = unwrap(await client.call("describe", {}));
  return [...FIXED_TOOLS, ...described.actions.map(directTool).filter((t): t is ToolSpec => t !== null)];
}

/**
 * Resolves the visible tools once (config is read once at start) and returns a factory that builds a
 * fresh MCP server per connection (stdio) or per request (stateless HTTP), so no state is shared between
 * clients (corpus cases M028, M029). Throws when the exposure config names unknown tools.
 */
export async function createServerFactory(client: DaemonClient, config: Config): Promise<{ factory: () => Server; tools: ToolSpec[] }> {
  const tools = selectTools(await allTools(client), config.tools);
  return { factory: () => buildServer(tools, client), tools };
}
