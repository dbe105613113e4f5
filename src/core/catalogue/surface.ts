import type { ExposureSettings, Toolset } from "../toolsets.ts";

/**
 * The tool surface of the catalogue (issue 24, docs/tool-surface.md): which read-only actions are LISTED as direct
 * tools in tools/list. Every other read-only action stays reachable through the two catalogue tools of the default
 * list, whatever its toolset: `find_actions` (names, descriptions and parameter schemas of the actions a toolset,
 * an access kind or a name picks) and `read_action` (runs one of them). Listing decides context cost only, never
 * what may run: the daemon judges every `query` by the action's own tool (app/exposure.ts), listed or not.
 *
 * These are the read-only actions listed before issue 24 (the tools existing clients, runbooks and evals call by
 * name; test/clients expects get_disk_usage). A new action is NOT listed unless it is added here, which spends the
 * default tools/list budget (test/e2e/context-cost.test.ts budgets each toolset): so 50 new actions cost the
 * default list nothing (bench/context-cost.ts `full` vs `default`).
 */
export const LISTED_BY_DEFAULT: ReadonlySet<string> = new Set([
  "GetSystemInfo", "GetDiskUsage", "GetLargestDirectories", "GetMemoryUsage", "GetLoad", "ListProcesses", "GetProcess",
  "ListListeningPorts", "GetNetworkInterfaces", "ReadJournal", "ReadLogFile", "SearchPackages", "GetPackageInfo",
  "ListUnits", "ListFailedUnits", "GetServiceStatus", "ListUnitTypes", "ReadUnit", "ReadUnitDefinition",
]);

/**
 * Whether the read-only action `action` (its direct tool `tool`, in `toolsets`) is listed as a direct tool: when
 * {@link LISTED_BY_DEFAULT} holds it, when `tools.enable` names its tool, or when the configuration sets one of its
 * toolsets `true` explicitly (`tools.groups.accounts: true` lists every accounts action: the per-configuration way to
 * turn a toolset's actions into tools, read once at start, so no client has to act on `tools/list_changed`). Whether
 * a listed tool is also offered is still the exposure rule's answer (core/toolsets.ts `exposureOf`).
 */
export function isListed(action: string, tool: string, toolsets: readonly Toolset[], settings: Pick<ExposureSettings, "groups" | "enable">): boolean {
  return LISTED_BY_DEFAULT.has(action) || settings.enable.includes(tool) || toolsets.some((g) => settings.groups[g] === true);
}
