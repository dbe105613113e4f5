import { toolNameOf } from "../core/catalogue/action.ts";
import { actorOf, type Caller } from "../core/caller.ts";
import { HostgateError } from "../core/errors.ts";
import { DEFAULT_EXPOSURE, exposureOf, FANOUT_TOOL, type Exposure, type ExposureSettings, type Toolset, type ToolExposure } from "../core/toolsets.ts";
import { METHODS, type MethodDef, type MethodName } from "../ipc/methods.ts";
import { audit } from "./audit-log.ts";
import type { DaemonDeps } from "./deps.ts";

export { DEFAULT_EXPOSURE } from "../core/toolsets.ts";

/**
 * The (first) tool a method call stands for, by the method table's `tool` entry (its name is the method's), or for `query`
 * by the action's own groups (tool `get_disk_usage` for `GetDiskUsage`, read-only). null: not a tool (describe,
 * resources, skills_status, admin methods) or an action the catalogue does not know (the handler answers that).
 */
export function toolOfCall(d: Pick<DaemonDeps, "catalogue">, method: MethodName, params: unknown): { name: string; tool: ToolExposure } | null {
  return toolsOfCall(d, method, params)[0] ?? null;
}

/**
 * Every tool a method call stands for, each judged by the gate: {@link toolOfCall}'s, and for a `query` fanned out
 * to `hosts` also read_on_hosts (core/toolsets.ts FANOUT_TOOL), the tool that offers fan-out.
 */
export function toolsOfCall(d: Pick<DaemonDeps, "catalogue">, method: MethodName, params: unknown): { name: string; tool: ToolExposure }[] {
  const one = oneToolOfCall(d, method, params);
  const fanout = method === "query" && (params as { hosts?: unknown }).hosts !== undefined;
  return [...(one ? [one] : []), ...(fanout ? [{ name: FANOUT_TOOL.name, tool: FANOUT_TOOL.exposure }] : [])];
}

function oneToolOfCall(d: Pick<DaemonDeps, "catalogue">, method: MethodName, params: unknown): { name: string; tool: ToolExposure } | null {
  if (method === "query") {
    const name = (params as { action?: unknown }).action;
    const action = typeof name === "string" ? d.catalogue.find((a) => a.name === name) : undefined;
    return action ? { name: toolNameOf(action.name), tool: { toolsets: action.toolsets, read_only: true } } : null;
  }
  const tool = (METHODS[method] as MethodDef).tool;
  return tool ? { name: method, tool } : null;
}

/**
 * Methods served even when their tool is hidden: `doctor` is how a human (`hostgate doctor`) learns what is off and
 * why, this rule included; it is read-only and tells the configuration's effect, nothing of the host's secrets.
 */
const SERVED_WHEN_HIDDEN: ReadonlySet<MethodName> = new Set<MethodName>(["doctor"]);

/**
 * The daemon's exposure gate (issue 19: the daemon decides what is offered), run by the dispatcher after the
 * table's checks and before the handler, for every caller (agent socket, tcp://, in-process fronts): a method
 * whose tool the exposure rule hides (core/toolsets.ts `exposureOf`, the one the front lists by) is refused with
 * `tool_disabled`, saying what to write in the daemon's configuration, and audited as `tool.refused`
 * (best effort: the refusal stands when the audit store cannot be written). `doctor` is always served (below).
 */
export function exposureGate(d: DaemonDeps): (method: MethodName, params: unknown, caller: Caller) => Promise<void> {
  const settings = d.exposure ?? DEFAULT_EXPOSURE;
  return async (method, params, caller) => {
    if (SERVED_WHEN_HIDDEN.has(method)) return;
    for (const call of toolsOfCall(d, method, params)) {
      const e = exposureOf(call.name, call.tool, settings);
      if (e.offered) continue;
      await audit(d.audit(), "tool.refused", actorOf(caller), { method, tool: call.name, reason: e.reason }).catch(() => undefined);
      throw new HostgateError("tool_disabled", `${call.name} is turned off in this daemon: ${e.reason}.`, {
        hint: `To turn it on, ${e.fix} in the daemon's configuration (hostgate config path shows which file) and restart the daemon (docs/configuration.md).`,
        details: { tool: call.name, reason: e.reason, fix: e.fix },
      });
    }
  };
}

/**
 * Whether the model is offered one catalogue action (find_actions lists it, `plan` takes it as a step) and, when
 * not, why and what to write in the configuration. A read-only action: as its direct tool is (THE rule,
 * core/toolsets.ts `exposureOf`: its tool name, its groups). A mutating action has no tool of its own (it runs
 * through `plan`): offered when `plan` is, and when it is in no toolset or in one that is not set false — so
 * `tools.groups.X: false` hides a toolset's changes as it hides its reads (an action in several toolsets stays
 * while one of them is on). `tools.enable`/`disable` name tools, so they do not apply to changes.
 */
export function actionExposure(a: { action: string; access: "read_only" | "mutating"; toolsets: readonly Toolset[] }, s: ExposureSettings): Exposure {
  if (a.access === "read_only") return exposureOf(toolNameOf(a.action), { toolsets: a.toolsets, read_only: true }, s);
  const plan = exposureOf("plan", (METHODS.plan as MethodDef).tool!, s);
  if (!plan.offered) return plan;
  if (a.toolsets.length === 0 || a.toolsets.some((g) => s.groups[g] !== false)) return { offered: true };
  const keys = a.toolsets.map((g) => `tools.groups.${g}`);
  return { offered: false, reason: `its toolset${keys.length > 1 ? "s are" : " is"} off (${keys.join(", ")}: false)`, fix: `set ${keys.map((k) => `${k}: true`).join(" or ")}` };
}

/**
 * Refuses a plan any of whose steps names an action the configuration hides ({@link actionExposure}), before any
 * preview: HostgateError `tool_disabled` naming the action and the config key to change, audited `tool.refused`
 * (best effort, as the exposure gate). Unknown action names pass (the plan's own validation answers them).
 */
export async function assertActionsOffered(d: DaemonDeps, steps: readonly { action: string }[], caller: Caller): Promise<void> {
  const settings = d.exposure ?? DEFAULT_EXPOSURE;
  for (const step of steps) {
    const a = d.catalogue.find((x) => x.name === step.action);
    if (!a) continue;
    const e = actionExposure({ action: a.name, access: a.access, toolsets: a.toolsets }, settings);
    if (e.offered) continue;
    await audit(d.audit(), "tool.refused", actorOf(caller), { method: "plan", tool: a.name, reason: e.reason }).catch(() => undefined);
    throw new HostgateError("tool_disabled", `${a.name} is turned off in this daemon: ${e.reason}. Nothing was planned.`, {
      hint: `To plan it, ${e.fix} in the daemon's configuration (hostgate config path shows which file) and restart the daemon (docs/configuration.md).`,
      details: { action: a.name, reason: e.reason, fix: e.fix },
    });
  }
}
