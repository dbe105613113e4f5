/**
 * How the context cost of the tool surface is measured (issues 14 and 24), shared by bench/context-cost.ts and
 * test/e2e/context-cost.test.ts so the budgets the test enforces are the figures the bench prints.
 */
import { toolNameOf } from "../../src/core/catalogue/action.ts";
import { CATALOGUE } from "../../src/core/catalogue/index.ts";
import { TOOLSETS, type Toolset } from "../../src/core/toolsets.ts";
import { FIXED_TOOLS } from "../../src/mcp/server.ts";

/**
 * Budget of the default tools/list's model-visible bytes, per toolset (a tool counts in its first toolset;
 * `(none)` for a tool in no group). Issue 24 split the single budget (12 KiB from issue 14, plus 512 bytes each for
 * issue 22's get_largest_directories, issue 20's `host` on every direct read and issue 20's read_on_hosts: 13,824
 * bytes) into these, each the bytes its toolset had then plus a few; a toolset absent here has 0 bytes: the new
 * action toolsets (accounts, scheduling, storage, kernel, network, certificates, time) add nothing to the default
 * list, their actions are reached through `catalogue`'s find_actions + read_action (docs/tool-surface.md).
 * `catalogue` (896 bytes, new in issue 24) pays for those two tools and for plan's pointer to find_actions (42 bytes,
 * in `approval`): an O(1) cost instead of ≈ 370 bytes per listed direct read (≈ 18 KB for the issue's 50 new actions).
 * Any other addition pays for itself: `audit` +56 (issue 24's confirm window adds three states to history's filter).
 */
export const TOOLSET_BUDGET_BYTES: Readonly<Partial<Record<Toolset | "(none)", number>>> = {
  approval: 1552, audit: 960, risk: 364, catalogue: 896, hosts: 2088, skills: 2296,
  host: 2480, logs: 1140, packages: 708, resource_api_fallback: 1316, systemd: 992,
};

/** Budget of the whole default tools/list: the sum of the per-toolset budgets (14,792 bytes). */
export const CONTEXT_BUDGET_BYTES = Object.values(TOOLSET_BUDGET_BYTES).reduce((a, b) => a + b, 0);

/** The fields of a tools/list entry that a model reads; outputSchema and annotations are left out. */
export interface ListedTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: unknown;
}

/** UTF-8 bytes of one tool's name, title, description and inputSchema, serialised as JSON. */
export function modelVisibleBytes(t: ListedTool): number {
  return Buffer.byteLength(JSON.stringify({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema }));
}

/** The toolset a tool's bytes are budgeted in: its first group (fixed tools and catalogue actions), else `(none)`. */
export function budgetToolset(name: string): string {
  const fixed = FIXED_TOOLS.find((t) => t.name === name);
  const sets = fixed ? fixed.toolsets : CATALOGUE.find((a) => toolNameOf(a.name) === name)?.toolsets;
  return sets?.[0] ?? "(none)";
}

/** Tools and model-visible bytes of a tools/list per budget toolset. */
export function bytesByToolset(tools: readonly ListedTool[]): Record<string, { tools: number; bytes: number }> {
  const by: Record<string, { tools: number; bytes: number }> = {};
  for (const t of tools) {
    const g = budgetToolset(t.name);
    by[g] ??= { tools: 0, bytes: 0 };
    by[g].tools++;
    by[g].bytes += modelVisibleBytes(t);
  }
  return by;
}

/**
 * The configuration of the FULL surface: every toolset set `true` (which lists every read-only action as a direct
 * tool, core/catalogue/surface.ts) and exec_on_host on. What a client that lists everything would read.
 */
export const FULL_SURFACE_YAML = `exec:\n  enabled: true\ntools:\n  groups:\n${TOOLSETS.map((t) => `    ${t}: true\n`).join("")}`;
