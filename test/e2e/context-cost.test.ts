import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { toolNameOf } from "../../src/core/catalogue/action.ts";
import { CATALOGUE } from "../../src/core/catalogue/index.ts";
import { LISTED_BY_DEFAULT } from "../../src/core/catalogue/surface.ts";
import { bytesByToolset, CONTEXT_BUDGET_BYTES, FULL_SURFACE_YAML, modelVisibleBytes, TOOLSET_BUDGET_BYTES } from "../helpers/context-cost.ts";
import { connectStdio, writeConfig } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

/**
 * Issues 14 and 24, context cost: what a model reads of the default tools/list (name, title, description and
 * inputSchema of every tool a default `hostgate mcp` advertises, measured as bench/context-cost.ts does) stays within
 * a budget per toolset (test/helpers/context-cost.ts TOOLSET_BUDGET_BYTES; a toolset absent there has 0 bytes), so a
 * new action or a longer text has to pay for itself in its own group, and the catalogue can grow without the
 * default list growing: actions outside LISTED_BY_DEFAULT are reached through find_actions + read_action.
 */
describe("context cost of the default tool surface", () => {
  let client: Client;
  let full: Client;
  beforeAll(async () => {
    client = await connectStdio("legacy", [], isolatedEnv("context-cost"));
    full = await connectStdio("legacy", ["--config", writeConfig(FULL_SURFACE_YAML)], isolatedEnv("context-full"));
  });
  afterAll(async () => { await client.close(); await full.close(); });

  it("keeps each toolset's share of the default tools/list within its budget", async () => {
    const { tools } = await client.listTools();
    for (const [toolset, { bytes, tools: n }] of Object.entries(bytesByToolset(tools))) {
      const budget = TOOLSET_BUDGET_BYTES[toolset as keyof typeof TOOLSET_BUDGET_BYTES] ?? 0;
      expect(bytes, `toolset ${toolset}: ${n} tool(s), ${bytes} bytes in the default tools/list, budget ${budget} (test/helpers/context-cost.ts)`).toBeLessThanOrEqual(budget);
    }
  });

  it(`keeps the default toolsets' model-visible tools/list within ${CONTEXT_BUDGET_BYTES} bytes`, async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(20);
    const sizes = tools.map((t) => [t.name, modelVisibleBytes(t)] as const).sort((a, b) => b[1] - a[1]);
    const total = sizes.reduce((a, [, n]) => a + n, 0);
    expect(total, `model-visible tools/list is ${total} bytes; largest: ${sizes.slice(0, 5).map(([n, b]) => `${n} ${b}`).join(", ")}`).toBeLessThanOrEqual(CONTEXT_BUDGET_BYTES);
  });

  it("lists by default only the reads of LISTED_BY_DEFAULT, and every read once its toolsets are set true", async () => {
    const names = new Set((await client.listTools()).tools.map((t) => t.name));
    const fullNames = new Set((await full.listTools()).tools.map((t) => t.name));
    for (const a of CATALOGUE.filter((x) => x.access === "read_only")) {
      expect(names.has(toolNameOf(a.name)), `${a.name} in the default tools/list`).toBe(LISTED_BY_DEFAULT.has(a.name));
      expect(fullNames.has(toolNameOf(a.name)), `${a.name} in the full tools/list`).toBe(true);
    }
    for (const t of ["find_actions", "read_action", "plan"]) expect(names.has(t), t).toBe(true);
  });
});
