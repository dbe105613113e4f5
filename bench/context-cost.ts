/**
 * Context cost of the tool surface (issue 14). Prints one JSON object: the bytes of tools/list that a model
 * reads (name, title, description, inputSchema per tool, as JSON) for the default configuration, per toolset,
 * and the full tools/list (with outputSchemas and annotations), against the budget (CONTEXT_BUDGET_BYTES, 13 KiB) of the default
 * toolsets; `headroom_bytes` is negative while over it.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { toolNameOf } from "../src/core/catalogue/action.ts";
import { CATALOGUE } from "../src/core/catalogue/index.ts";
import { FIXED_TOOLS } from "../src/mcp/server.ts";
import { CONTEXT_BUDGET_BYTES, modelVisibleBytes } from "../test/helpers/context-cost.ts";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";
import { isolatedEnv } from "../test/helpers/isolated-env.ts";

const BUDGET = CONTEXT_BUDGET_BYTES;
const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp"], env: { ...process.env, ...isolatedEnv("context") } as Record<string, string>, stderr: "ignore" });
const client = new Client({ name: "bench", version: "1" });
await client.connect(transport);
const { tools } = await client.listTools();
await client.close();

/** Toolsets of each tool, from the fixed tools and the catalogue (the front's own sources). */
const groups = new Map<string, readonly string[]>([...FIXED_TOOLS.map((t) => [t.name, t.toolsets] as const), ...CATALOGUE.map((a) => [toolNameOf(a.name), a.toolsets] as const)]);
const visible = modelVisibleBytes;
const total = tools.reduce((a, t) => a + visible(t), 0);
const byToolset: Record<string, { tools: number; bytes: number }> = {};
for (const t of tools) {
  const sets = groups.get(t.name) ?? ["(none)"];
  for (const s of sets) {
    byToolset[s] ??= { tools: 0, bytes: 0 };
    byToolset[s].tools++;
    byToolset[s].bytes += visible(t);
  }
}
console.log(JSON.stringify({
  bench: "context-cost",
  default_tools: tools.length,
  model_visible_bytes: total,
  full_tools_list_bytes: Buffer.byteLength(JSON.stringify({ tools })),
  budget_bytes: BUDGET,
  headroom_bytes: BUDGET - total,
  largest: tools.map((t) => [t.name, visible(t)] as const).sort((a, b) => b[1] - a[1]).slice(0, 8),
  by_toolset: byToolset,
}));
