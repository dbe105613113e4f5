import { toolNameOf } from "../../core/catalogue/action.ts";
import type { ActionDescriptor } from "../../ipc/protocol.ts";
import { queryToolResult } from "../result.ts";
import type { ToolSpec } from "../tool-spec.ts";

/**
 * A direct tool for one read-only catalogue action: `GetDiskUsage` → `get_disk_usage`. The front does not
 * decide that the action is read-only; the daemon's query path refuses anything else whatever is asked.
 * Descriptors that are not read-only never become direct tools (a mutating action goes through plan).
 */
export function directTool(action: ActionDescriptor): ToolSpec | null {
  if (action.access !== "read_only") return null;
  return {
    name: toolNameOf(action.action),
    title: action.title,
    description: action.description,
    inputSchema: action.input_schema,
    outputSchema: action.output_schema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    toolsets: action.toolsets,
    method: "query",
    handler: async (args, client, ctx) => queryToolResult(await client.call("query", { action: action.action, args }, ctx)),
  };
}
