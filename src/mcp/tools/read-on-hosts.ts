import { actionNameOf } from "../../core/catalogue/action.ts";
import { describeIssues } from "../../core/errors.ts";
import { FANOUT_TOOL } from "../../core/toolsets.ts";
import { ReadOnHostsInputSchema, ReadOnHostsResultSchema } from "../../ipc/hosts.ts";
import { toolWireSchemas } from "../../ipc/prebuilt.ts";
import type { QueryResult } from "../../ipc/protocol.ts";
import { errorResult, queryToolResult } from "../result.ts";
import type { ToolResult, ToolSpec } from "../tool-spec.ts";

const schemas = toolWireSchemas(FANOUT_TOOL.name, ReadOnHostsInputSchema, ReadOnHostsResultSchema);

/**
 * The answer as a tool result (result.ts queryToolResult: structuredContent, text mirror, `_meta` provenance with
 * every host). When no host answered, `isError: true` with the first host's error code, structuredContent kept
 * (it matches the outputSchema): the model sees a failed call, not an empty success.
 */
function fanOutResult(r: QueryResult): ToolResult {
  const out = queryToolResult(r);
  if (!r.ok || out.isError) return out;
  const data = r.value.data as { groups: unknown[]; errors: { code: string; message: string }[] };
  if (data.groups.length > 0 || data.errors.length === 0) return out;
  const first = data.errors[0]!;
  return { ...out, isError: true, _meta: { ...out._meta, "dev.hostgate/error_code": first.code } };
}

/**
 * `read_on_hosts` (issue 20, docs/hosts.md "Fan-out"): one direct read-only tool on several hosts at once. A
 * separate tool rather than a `hosts` argument on every direct tool: a fan-out's answer is not one host's, and
 * every direct tool keeps an outputSchema that says exactly what one host answers (a top-level oneOf/anyOf is
 * refused by model APIs, test/tool-schemas.test.ts; making every field optional would hide that instead), at the
 * cost of one tool in tools/list instead of a parameter on each. The front decides nothing: it maps the tool name
 * to its action (`get_disk_usage` → `GetDiskUsage`) and calls the daemon's `query { hosts }`, which checks the
 * action (read-only, role, exposure of both tools), each host (name, `read` policy, what it offers) and runs at
 * most `exec.fanout_concurrency` hosts at once, 25 s each.
 */
export const readOnHostsTool: ToolSpec = {
  name: FANOUT_TOOL.name,
  title: "Read on several hosts",
  description: "Call one read-only tool on several hosts at once: identical answers grouped with their hosts, failures in errors.",
  get inputSchema() { return schemas.input(); },
  get outputSchema() { return schemas.output(); },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  toolsets: FANOUT_TOOL.exposure.toolsets,
  method: "query",
  handler: async (args, client, ctx) => {
    const parsed = ReadOnHostsInputSchema.safeParse(args);
    if (!parsed.success) {
      return errorResult({ code: "invalid_params", message: `Invalid arguments for ${FANOUT_TOOL.name}: ${describeIssues(parsed.error, "arguments")}.`, hint: 'A valid call: {"tool":"get_disk_usage","hosts":["web1","web2"],"arguments":{}}.' });
    }
    const { tool, hosts, arguments: toolArgs = {} } = parsed.data;
    if ("host" in toolArgs) {
      return errorResult({ code: "invalid_params", message: `${FANOUT_TOOL.name} takes the hosts in "hosts"; "arguments" holds ${tool}'s own arguments, without "host".`, hint: `Move the host into "hosts".` });
    }
    const r = await client.call("query", { action: actionNameOf(tool), args: toolArgs, hosts }, ctx);
    if (!r.ok && r.error.code === "unknown_action") {
      return errorResult({ ...r.error, message: `${tool} is not a read-only tool of this daemon: ${r.error.message}`, hint: "Name a read-only tool from tools/list, e.g. get_disk_usage or list_units." });
    }
    return fanOutResult(r);
  },
};
