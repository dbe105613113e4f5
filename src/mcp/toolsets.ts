import { exposureOf, frontNarrows, type ExposureSettings, type ToolExposure } from "../core/toolsets.ts";
import type { ToolSpec } from "./tool-spec.ts";

/** Why a tool is not listed and what to write in the config to list it (core/toolsets.ts `exposureOf`). */
export interface HiddenTool {
  reason: string;
  fix: string;
  /** Where to apply `fix`, when not the daemon's configuration (a front's own narrowing: this MCP server's configuration). */
  where?: string;
}

/** What the exposure rule needs of a tool spec (core/toolsets.ts ToolExposure). */
function exposureFacts(t: ToolSpec): ToolExposure {
  return { toolsets: t.toolsets, read_only: t.annotations.readOnlyHint, ...(t.off_by_default !== undefined ? { off_by_default: t.off_by_default } : {}) };
}

/**
 * Throws (Error saying which names and the known ones) when `settings`' tools.enable/tools.disable name a tool
 * that is not in `all`: a typo in the front's own configuration stops it at start (exit 2).
 */
export function assertKnownToolNames(all: readonly ToolSpec[], settings: Pick<ExposureSettings, "enable" | "disable">): void {
  const known = new Set(all.map((t) => t.name));
  const unknown = [...settings.enable, ...settings.disable].filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new Error(`tools.enable/tools.disable name unknown tool(s): ${unknown.join(", ")}. Known tools: ${[...known].sort().join(", ")}.`);
  }
}

/**
 * Applies the exposure configuration to the full tool list with THE rule the daemon also applies to its methods
 * (core/toolsets.ts `exposureOf`: exposure read_only, tools.disable, off-by-default switches such as exec.enabled,
 * tools.enable, groups). Returns the visible tools in input order and, by name, why each other one is hidden.
 * A name in tools.enable/tools.disable that is no tool here is ignored: the settings are the daemon's, which it
 * checked (issue 19); a front checks its own config's names with {@link assertKnownToolNames}.
 */
export function exposeTools(all: readonly ToolSpec[], settings: ExposureSettings): { tools: ToolSpec[]; hidden: Map<string, HiddenTool> } {
  const tools: ToolSpec[] = [];
  const hidden = new Map<string, HiddenTool>();
  for (const t of all) {
    const e = exposureOf(t.name, exposureFacts(t), settings);
    if (e.offered) tools.push(t);
    else hidden.set(t.name, { reason: e.reason, fix: e.fix });
  }
  return { tools, hidden };
}

/**
 * The tools of `offered` (what the daemon offers) that this front's own configuration `own` keeps: a front may hide
 * what its daemon offers, never add (core/toolsets.ts `frontNarrows`). Each one it hides joins `hidden` with its reason,
 * the fix and `where` = this MCP server's configuration. Returns the kept tools in input order.
 */
export function narrowTools(offered: readonly ToolSpec[], own: ExposureSettings, hidden: Map<string, HiddenTool>): ToolSpec[] {
  return offered.filter((t) => {
    const e = frontNarrows(t.name, exposureFacts(t), own);
    if (e.offered) return true;
    hidden.set(t.name, { reason: `this MCP server's own configuration hides it (${e.reason})`, fix: e.fix, where: "this MCP server's configuration (its --config file, or hostgate's configuration) and restart it" });
    return false;
  });
}

/** The visible tools only (see {@link exposeTools}). */
export function selectTools(all: readonly ToolSpec[], settings: ExposureSettings): ToolSpec[] {
  return exposeTools(all, settings).tools;
}
