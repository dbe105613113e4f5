/**
 * Toolsets (exposure groups, DESIGN.md Words): the one list. A tool file and a catalogue action name their
 * groups with {@link Toolset}, so a misspelt group is a type error; config `tools.groups` keys follow this
 * list (config/schema.ts). Add a group here and nowhere else.
 */
export const TOOLSETS = [
  "host", "logs", "packages", "systemd", "resource_api_fallback", "approval", "risk", "audit", "hosts", "skills",
  // Issue 24: the catalogue's discovery tools (find_actions, read_action), and the new actions' groups.
  "catalogue", "accounts", "scheduling", "storage", "kernel", "network", "certificates", "time",
] as const;

/**
 * The toolsets catalogue actions belong to (the rest group fixed tools): find_actions' `toolset` filter offers these,
 * so the model sees every action group in the default tools/list at ≈ 10 bytes each (docs/tool-surface.md).
 */
export const ACTION_TOOLSETS = ["host", "logs", "packages", "systemd", "accounts", "scheduling", "storage", "kernel", "network", "certificates", "time"] as const;

/** One exposure group name. */
export type Toolset = (typeof TOOLSETS)[number];

/** Whether `name` is a known toolset. */
export function isToolset(name: string): name is Toolset {
  return (TOOLSETS as readonly string[]).includes(name);
}

/**
 * What the exposure rule needs to know of one model-facing tool: its groups, whether it is read-only (its
 * `readOnlyHint`), and for a tool hidden by default (exec_on_host) the config key that turns it on
 * (`exec.enabled`). The daemon reads it from the method table (ipc/methods.ts `tool`) and the catalogue; the front
 * from its tool list.
 */
export interface ToolExposure {
  toolsets: readonly Toolset[];
  read_only: boolean;
  /** Hidden unless this config key is true (or, the older spellings, `tools.enable` names the tool or one of its groups is set `true`). */
  off_by_default?: string;
}

/**
 * read_on_hosts (issue 20): one read-only tool fanned out to several hosts. The front lists it by this entry and
 * the daemon judges a `query` with `hosts` by it as well as by the action's own tool (app/exposure.ts), so hiding
 * either hides the fan-out.
 */
export const FANOUT_TOOL: { readonly name: string; readonly exposure: ToolExposure } = { name: "read_on_hosts", exposure: { toolsets: ["hosts"], read_only: true } };

/** The exposure configuration (config `tools.*`, plus the switches of off-by-default tools such as `exec.enabled`). */
export interface ExposureSettings {
  exposure: "all" | "read_only";
  groups: Readonly<Partial<Record<Toolset, boolean>>>;
  enable: readonly string[];
  disable: readonly string[];
  /** By config key (`exec.enabled`): true shows its tool, false hides it whatever else says, absent lets the older keys decide. */
  switches: Readonly<Record<string, boolean | undefined>>;
}

/** The defaults of config `tools.*` with no `exec.enabled`: every group on, exec_on_host off. */
export const DEFAULT_EXPOSURE: ExposureSettings = { exposure: "all", groups: {}, enable: [], disable: [], switches: {} };

/** Whether a tool is offered; when not, why (`reason`) and what to write in the config to offer it (`fix`). */
export type Exposure = { offered: true } | { offered: false; reason: string; fix: string };

/**
 * THE exposure rule, used by the MCP front for tools/list and by the daemon for every method it serves (one
 * function, so the list and the daemon never disagree). In this order:
 * 1. `tools.exposure: read_only` hides every tool that is not read-only (nothing brings one back);
 * 2. `tools.disable` naming the tool hides it;
 * 3. an off-by-default tool (exec_on_host) is offered when its switch (`exec.enabled`) is true, hidden when it is
 *    false; with no switch set, when `tools.enable` names it or one of its groups is set `true` explicitly;
 * 4. `tools.enable` naming the tool offers it;
 * 5. otherwise it is offered when it is in no group or any of its groups is not set `false` (groups default on).
 * Sources: the systemd-resources reference's exposure groups; issue 19 (the daemon decides), issue 22 (`exec.enabled`).
 */
export function exposureOf(name: string, tool: ToolExposure, s: ExposureSettings): Exposure {
  if (s.exposure === "read_only" && !tool.read_only) {
    return { offered: false, reason: "tools.exposure is read_only, which hides every tool that can change something", fix: "set tools.exposure: all" };
  }
  if (s.disable.includes(name)) return { offered: false, reason: `tools.disable names ${name}`, fix: `remove ${name} from tools.disable` };
  if (tool.off_by_default !== undefined) {
    const key = tool.off_by_default;
    const on = s.switches[key];
    if (on === true) return { offered: true };
    if (on === false) return { offered: false, reason: `${key} is false`, fix: `set ${key}: true` };
    if (s.enable.includes(name) || tool.toolsets.some((g) => s.groups[g] === true)) return { offered: true };
    return { offered: false, reason: `${name} is off unless ${key} is true`, fix: `set ${key}: true` };
  }
  if (s.enable.includes(name)) return { offered: true };
  if (tool.toolsets.length === 0 || tool.toolsets.some((g) => s.groups[g] !== false)) return { offered: true };
  const off = tool.toolsets.map((g) => `tools.groups.${g}`).join(", ");
  return { offered: false, reason: `its group${tool.toolsets.length > 1 ? "s are" : " is"} off (${off}: false)`, fix: `set ${tool.toolsets.map((g) => `tools.groups.${g}: true`).join(" or ")}, or add ${name} to tools.enable` };
}

/**
 * Whether a front's own configuration hides a tool its daemon offers (issue 19: the daemon decides what is offered;
 * a front may list less, as a per-client restriction of what its model is shown, never more; not a boundary: the
 * daemon's gate, {@link exposureOf} over its own settings, is). Only what narrows counts: `tools.exposure:
 * read_only`, `tools.disable`, a group set `false` (unless `tools.enable` names the tool), a switch set `false`. A switch
 * set `true` only widens, so it does nothing here, and an off-by-default tool (exec_on_host) is not hidden merely because the front's
 * configuration does not switch it on: the daemon's switch decides that. Same answer shape as {@link exposureOf}.
 */
export function frontNarrows(name: string, tool: ToolExposure, own: ExposureSettings): Exposure {
  const key = tool.off_by_default;
  const kept = key !== undefined && own.switches[key] === false ? tool : { toolsets: tool.toolsets, read_only: tool.read_only };
  return exposureOf(name, kept, own);
}

/**
 * Whether two exposure settings offer the same tools by construction: the same `exposure`, the same value (or
 * absence) of every group and switch, and the same tools.enable / tools.disable names in any order. The front
 * compares the settings it listed its tools by with those of the daemon it then uses (cli/front-client.ts).
 */
export function sameExposure(a: ExposureSettings, b: ExposureSettings): boolean {
  const sameSet = (x: readonly string[], y: readonly string[]): boolean => new Set(x).size === new Set(y).size && x.every((n) => y.includes(n));
  const switches = new Set([...Object.keys(a.switches), ...Object.keys(b.switches)]);
  return a.exposure === b.exposure
    && TOOLSETS.every((g) => a.groups[g] === b.groups[g])
    && sameSet(a.enable, b.enable) && sameSet(a.disable, b.disable)
    && [...switches].every((k) => a.switches[k] === b.switches[k]);
}
