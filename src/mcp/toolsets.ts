import type { Config } from "../config/schema.ts";
import type { ToolSpec } from "./tool-spec.ts";

/**
 * Applies the exposure configuration to the full tool list, in this order: `exposure: read_only` hides
 * every tool whose readOnlyHint is false (no override can bring one back); then a tool is visible when any
 * of its groups is on (groups default on; a tool in no group is visible) unless `tools.disable` names it;
 * `tools.enable` shows a tool whose groups are all off. A tool `off_by_default` (exec_on_host) shows only when
 * `tools.enable` names it or one of its groups is set `true` explicitly. Throws when enable/disable name an unknown tool.
 */
export function selectTools(all: readonly ToolSpec[], tools: Config["tools"]): ToolSpec[] {
  const known = new Set(all.map((t) => t.name));
  const unknown = [...tools.enable, ...tools.disable].filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new Error(`tools.enable/tools.disable name unknown tool(s): ${unknown.join(", ")}. Known tools: ${[...known].sort().join(", ")}.`);
  }
  const groups: Record<string, boolean | undefined> = tools.groups;
  return all.filter((t) => {
    if (tools.exposure === "read_only" && !t.annotations.readOnlyHint) return false;
    if (tools.disable.includes(t.name)) return false;
    if (tools.enable.includes(t.name)) return true;
    if (t.off_by_default) return t.toolsets.some((g) => groups[g] === true);
    return t.toolsets.length === 0 || t.toolsets.some((g) => groups[g] !== false);
  });
}
