import { actionNameOf, toolNameOf } from "../core/catalogue/action.ts";
import type { ExposureSettings } from "../core/toolsets.ts";
import type { FindActionsInput, FindActionsResult, FoundAction } from "../ipc/find-actions.ts";
import { actionExposure } from "./exposure.ts";
import type { ActionDescriptor } from "../ipc/protocol.ts";

/**
 * `find_actions` (issue 24): the actions this daemon offers on its own host's family, with the JSON Schema of their
 * parameters, so a model can call any of them right on the next call (`read_action` for a read, a `plan` step for a
 * change). The daemon decides what is offered (app/exposure.ts `actionExposure`, over THE exposure rule): a
 * read-only action as its direct tool would be (`tools.groups.*`, `tools.enable`/`disable`, `tools.exposure`), a
 * mutating one when `plan` is offered (with `tools.exposure: read_only` none is) and one of its toolsets is not set
 * false (plan refuses the others the same way). Filters combine; `query` matches every
 * word (case-insensitive) in the name, tool name, title, description or toolsets.
 */
export function findActions(described: readonly ActionDescriptor[], settings: ExposureSettings, p: FindActionsInput): FindActionsResult {
  const offered = described.filter((a) => actionExposure(a, settings).offered);
  const toolsets: FindActionsResult["toolsets"] = {};
  for (const a of offered) {
    for (const g of a.toolsets.length > 0 ? a.toolsets : ["(none)"]) {
      toolsets[g] ??= { read_only: 0, mutating: 0 };
      toolsets[g][a.access]++;
    }
  }
  const names = p.actions ? new Set(p.actions.map((n) => /^[a-z]/.test(n) ? actionNameOf(n) : n)) : null;
  const words = p.query?.toLowerCase().split(/\s+/).filter((w) => w.length > 0) ?? [];
  const actions = offered.filter((a) => (p.toolset === undefined || (a.toolsets as readonly string[]).includes(p.toolset))
    && (p.access === undefined || a.access === p.access)
    && (names === null || names.has(a.action))
    && words.every((w) => haystack(a).includes(w))).map(found);
  return { actions, toolsets };
}

function haystack(a: ActionDescriptor): string {
  return [a.action, toolNameOf(a.action), a.title, a.description, ...a.toolsets].join(" ").toLowerCase();
}

function found(a: ActionDescriptor): FoundAction {
  const read = a.access === "read_only";
  return {
    action: a.action,
    call: read ? "read_action" : "plan",
    ...(read ? { tool: toolNameOf(a.action) } : {}),
    access: a.access,
    title: a.title,
    description: a.description,
    risk_level: a.risk_level,
    toolsets: [...a.toolsets],
    params: a.input_schema,
  };
}
