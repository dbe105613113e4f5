import { actionNameOf, toolNameOf } from "../core/catalogue/action.ts";
import { rankByQuery } from "../core/catalogue/search.ts";
import { ACTION_TOOLSETS, type ExposureSettings } from "../core/toolsets.ts";
import type { FindActionsInput, FindActionsResult, FoundAction } from "../ipc/find-actions.ts";
import { actionExposure } from "./exposure.ts";
import type { ActionDescriptor } from "../ipc/protocol.ts";

/**
 * `find_actions` (issue 24): the actions this daemon offers on its own host's family, with the JSON Schema of their
 * parameters, so a model can call any of them right on the next call (`read_action` for a read, a `plan` step for a
 * change). The daemon decides what is offered (app/exposure.ts `actionExposure`, over THE exposure rule): a
 * read-only action as its direct tool would be (`tools.groups.*`, `tools.enable`/`disable`, `tools.exposure`), a
 * mutating one when `plan` is offered (with `tools.exposure: read_only` none is) and one of its toolsets is not set
 * false (plan refuses the others the same way). Filters combine; `query` is searched word by
 * word with synonyms (core/catalogue/search.ts): actions matching any word, most words first, at most
 * {@link QUERY_LIMIT} (a `note` says how many more). An empty answer's `note` says what to try instead.
 * `unavailable`: action name → why it cannot run on the daemon's own host (describe's `local_unavailable`, e.g.
 * "no systemd"); such actions are still offered, marked `available: false` with the `reason`.
 * Toolsets are named as the tool's `toolset` filter accepts them (ACTION_TOOLSETS): an action's other exposure groups
 * (resource_api_fallback) are config keys, not filters, and are left out of the answer.
 */
export function findActions(described: readonly ActionDescriptor[], settings: ExposureSettings, p: FindActionsInput, unavailable: Readonly<Record<string, string>> = {}): FindActionsResult {
  const offered = described.filter((a) => actionExposure(a, settings).offered);
  const toolsets: FindActionsResult["toolsets"] = {};
  for (const a of offered) {
    for (const g of filterable(a.toolsets)) {
      toolsets[g] ??= { read_only: 0, mutating: 0 };
      toolsets[g][a.access]++;
    }
  }
  const names = p.actions ? new Set(p.actions.map((n) => /^[a-z]/.test(n) ? actionNameOf(n) : n)) : null;
  const filtered = offered.filter((a) => (p.toolset === undefined || (a.toolsets as readonly string[]).includes(p.toolset))
    && (p.access === undefined || a.access === p.access)
    && (names === null || names.has(a.action)));
  const ranked = p.query === undefined ? filtered : rankByQuery(filtered, p.query, (a) => ({ ...a, tool: toolNameOf(a.action) }));
  const actions = (p.query === undefined ? ranked : ranked.slice(0, QUERY_LIMIT)).map((a) => found(a, unavailable[a.action]));
  const note = noteOf(p, ranked.length, actions.length, filtered.length);
  return { actions, toolsets, ...(note !== null ? { note } : {}) };
}

/** Most actions one `query` answers (best first): a model asking in words wants a few candidates, not the catalogue. */
export const QUERY_LIMIT = 10;

function filterable(toolsets: readonly string[]): string[] {
  return toolsets.filter((g) => (ACTION_TOOLSETS as readonly string[]).includes(g));
}

/** What the model should do next when the answer is empty or cut; null when there is nothing to say. */
function noteOf(p: FindActionsInput, matched: number, shown: number, filtered: number): string | null {
  const sets = `find_actions { toolset } with one of: ${ACTION_TOOLSETS.join(", ")} (the toolsets field counts each)`;
  if (shown === 0 && p.query !== undefined && filtered > 0) return `No action matches any word of ${JSON.stringify(p.query)}. Try other words (e.g. "users", "timers", "certificates", "firewall") or list a toolset: ${sets}.`;
  if (shown === 0) return `No offered action fits these filters. Drop a filter, or list a toolset: ${sets}.`;
  if (matched > shown) return `${matched - shown} more actions match fewer of the words; add words or a toolset to narrow.`;
  return null;
}

function found(a: ActionDescriptor, unavailable: string | undefined): FoundAction {
  const read = a.access === "read_only";
  return {
    action: a.action,
    call: read ? "read_action" : "plan",
    ...(read ? { tool: toolNameOf(a.action) } : {}),
    access: a.access,
    title: a.title,
    description: a.description,
    risk_level: a.risk_level,
    toolsets: filterable(a.toolsets),
    params: a.input_schema,
    ...(unavailable !== undefined ? { available: false, reason: `cannot run on this host: ${unavailable}` } : {}),
  };
}
