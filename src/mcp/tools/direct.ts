import { toolNameOf } from "../../core/catalogue/action.ts";
import type { ActionDescriptor } from "../../ipc/protocol.ts";
import { queryToolResult } from "../result.ts";
import type { ToolSpec } from "../tool-spec.ts";

/**
 * The `host` argument every direct tool takes (issue 20): an inventory name, default `local`. Identical on every
 * tool and without a description of its own (≈ 25 bytes × every read tool of the budgeted default tools/list,
 * test/helpers/context-cost.ts; a 30-byte description would cost ≈ 600 more): search_hosts' description says
 * once what it means. The front only passes it on: the daemon checks the name, the read policy and what the
 * host offers.
 */
export const HOST_PROPERTY = { type: "string" } as const;

/** The action's input schema with {@link HOST_PROPERTY} added. Throws when the action has a `host` parameter of its own. */
function withHost(action: ActionDescriptor): Record<string, unknown> {
  const props = (action.input_schema.properties ?? {}) as Record<string, unknown>;
  if ("host" in props) throw new Error(`${action.action} has a parameter named host, which its direct tool uses for the host to read`);
  return { ...action.input_schema, properties: { ...props, host: HOST_PROPERTY } };
}

/**
 * A direct tool for one read-only catalogue action: `GetDiskUsage` → `get_disk_usage`, with an optional `host`
 * (an inventory name; absent: `local`) passed to the daemon's `query` beside the action's own arguments. The
 * front does not decide that the action is read-only; the daemon's query path refuses anything else whatever is
 * asked. Descriptors that are not read-only never become direct tools (a mutating action goes through plan).
 * Fan-out to several hosts is read_on_hosts (read-on-hosts.ts): a direct tool's outputSchema is one host's answer.
 * `unavailable`: why the action cannot answer on the daemon's own host (describe's `local_unavailable`); the tool
 * stays listed, since it can still read other hosts through `host`, and its description ends with
 * {@link unavailableSentence} (issue 22).
 */
export function directTool(action: ActionDescriptor, unavailable?: string): ToolSpec | null {
  if (action.access !== "read_only") return null;
  return {
    name: toolNameOf(action.action),
    title: action.title,
    description: unavailable === undefined ? action.description : `${action.description} ${unavailableSentence(unavailable)}`,
    inputSchema: withHost(action),
    outputSchema: action.output_schema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    toolsets: action.toolsets,
    action: action.action,
    method: "query",
    handler: async (args, client, ctx) => {
      const { host, ...rest } = args;
      return queryToolResult(await client.call("query", { action: action.action, args: rest, ...(host !== undefined ? { host: host as string } : {}) }, ctx));
    },
  };
}

/** The sentence a direct tool's description gains when its action cannot answer on the local host. */
export function unavailableSentence(why: string): string {
  return `Unavailable on local (${why}).`;
}
