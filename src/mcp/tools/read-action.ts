import { actionNameOf } from "../../core/catalogue/action.ts";
import { queryToolResult } from "../result.ts";
import type { ToolSpec } from "../tool-spec.ts";
import { HOST_PROPERTY } from "./direct.ts";

/** Input of read_action: the action (PascalCase or its tool name), its arguments, and the host to read. */
const INPUT = {
  type: "object",
  properties: { action: { type: "string" }, args: { type: "object" }, host: HOST_PROPERTY },
  required: ["action"],
  additionalProperties: false,
} as const;

/**
 * `read_action` (issue 24, docs/tool-surface.md): runs ANY read-only catalogue action, listed as a direct tool or
 * not, with the arguments `find_actions` described: `{ action: "ListUsers" | "list_users", args, host }` becomes the
 * daemon's `query`. The front decides nothing: the daemon refuses an action that is not read-only (`not_read_only`),
 * judges exposure by the action's own tool (`tool_disabled`, app/exposure.ts) and validates `args` against the
 * action's schema (`invalid_params`). Its answer is the action's, as from the direct tool (same provenance, `_meta`).
 */
export const readActionTool: ToolSpec = {
  name: "read_action",
  title: "Read action",
  description: "Run one read-only action from find_actions: {action, args}.",
  inputSchema: INPUT,
  outputSchema: { type: "object", additionalProperties: true },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolsets: ["catalogue"],
  method: "query",
  handler: async (args, client, ctx) => {
    const { action, args: actionArgs, host, ...unknown } = args as { action?: unknown; args?: unknown; host?: unknown };
    const extra = Object.keys(unknown);
    if (extra.length > 0) return badInput(`unknown argument(s) ${extra.map((k) => JSON.stringify(k)).join(", ")}: it takes action, args and host (the action's own parameters go inside args)`);
    if (typeof action !== "string" || action.length === 0) return badInput("action must be a catalogue action's name (find_actions lists them), e.g. \"ListUsers\" or \"list_users\"");
    if (actionArgs !== undefined && (typeof actionArgs !== "object" || actionArgs === null || Array.isArray(actionArgs))) return badInput("args must be an object of the action's parameters (find_actions shows its params schema), e.g. {}");
    if (host !== undefined && typeof host !== "string") return badInput("host must be a host name from search_hosts, or omitted for local");
    const name = /^[a-z]/.test(action) ? actionNameOf(action) : action;
    return queryToolResult(await client.call("query", { action: name, args: actionArgs ?? {}, ...(host !== undefined ? { host } : {}) }, ctx));
  },
};

function badInput(message: string): ReturnType<typeof queryToolResult> {
  return queryToolResult({ ok: false, error: { code: "invalid_params", message: `Invalid arguments for read_action: ${message}.` } });
}
