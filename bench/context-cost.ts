/**
 * Context cost of the tool surface (issues 14 and 24). Prints one JSON object: the bytes of tools/list that a model
 * reads (name, title, description, inputSchema per tool, as JSON) for the default configuration and for the FULL
 * surface (every toolset set true: every read-only action listed as a direct tool), per budget toolset, against the
 * budgets (test/helpers/context-cost.ts); `headroom_bytes` is negative while over. `alternatives` measures, on the
 * same catalogue, the designs docs/tool-surface.md compares: one tool per toolset with an action enum and a `oneOf`
 * of its actions' params, and plan with a generated `oneOf` step schema per mutating action.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describeAction } from "../src/app/describe.ts";
import { CATALOGUE } from "../src/core/catalogue/index.ts";
import { bytesByToolset, CONTEXT_BUDGET_BYTES, FULL_SURFACE_YAML, modelVisibleBytes, TOOLSET_BUDGET_BYTES } from "../test/helpers/context-cost.ts";
import { HOSTGATE_BIN, writeConfig } from "../test/helpers/hostgate.ts";
import { isolatedEnv } from "../test/helpers/isolated-env.ts";

async function list(args: string[]): Promise<{ name: string; title?: string; description?: string; inputSchema: unknown }[]> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp", ...args], env: { ...process.env, ...isolatedEnv("context") } as Record<string, string>, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  await client.close();
  return tools;
}

const sum = (tools: readonly Parameters<typeof modelVisibleBytes>[0][]): number => tools.reduce((a, t) => a + modelVisibleBytes(t), 0);
const def = await list([]);
const full = await list(["--config", writeConfig(FULL_SURFACE_YAML)]);
const total = sum(def);

// The alternatives, built from the same descriptors the daemon publishes.
const described = CATALOGUE.map(describeAction);
const reads = described.filter((a) => a.access === "read_only");
const changes = described.filter((a) => a.access === "mutating");
const toolsets = [...new Set(reads.flatMap((a) => a.toolsets))];
const enumTools = toolsets.map((g) => {
  const mine = reads.filter((a) => a.toolsets[0] === g);
  return {
    name: `${g}_read`, title: g, description: mine.map((a) => `${a.action}: ${a.title}.`).join(" "),
    inputSchema: { type: "object", properties: { action: { type: "string", enum: mine.map((a) => a.action) }, params: { oneOf: mine.map((a) => a.input_schema) }, host: { type: "string" } }, required: ["action"] },
  };
});
const planStepOneOf = Buffer.byteLength(JSON.stringify({ oneOf: changes.map((a) => ({ type: "object", properties: { action: { const: a.action }, params: a.input_schema }, required: ["action", "params"] })) }));
const perRead = reads.length > 0 ? Math.round(sum(full.filter((t) => reads.some((a) => a.action.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase() === t.name))) / reads.length) : 0;

console.log(JSON.stringify({
  bench: "context-cost",
  default_tools: def.length,
  model_visible_bytes: total,
  full_tools: full.length,
  full_model_visible_bytes: sum(full),
  full_tools_list_bytes: Buffer.byteLength(JSON.stringify({ tools: full })),
  default_tools_list_bytes: Buffer.byteLength(JSON.stringify({ tools: def })),
  budget_bytes: CONTEXT_BUDGET_BYTES,
  headroom_bytes: CONTEXT_BUDGET_BYTES - total,
  catalogue: { read_only: reads.length, mutating: changes.length },
  mean_direct_read_bytes: perRead,
  largest: def.map((t) => [t.name, modelVisibleBytes(t)] as const).sort((a, b) => b[1] - a[1]).slice(0, 8),
  by_toolset: Object.fromEntries(Object.entries(bytesByToolset(def)).map(([g, v]) => [g, { ...v, budget: TOOLSET_BUDGET_BYTES[g as keyof typeof TOOLSET_BUDGET_BYTES] ?? 0 }])),
  full_by_toolset: bytesByToolset(full),
  alternatives: {
    enum_tool_per_toolset_bytes: sum(enumTools),
    enum_tool_per_toolset_tools: enumTools.length,
    plan_step_oneof_bytes: planStepOneOf,
  },
}));
