import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { CONTEXT_BUDGET_BYTES, modelVisibleBytes } from "../helpers/context-cost.ts";
import { connectStdio } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

/**
 * Issue 14, context cost: what a model reads of the default tools/list (name, title, description and
 * inputSchema of every tool a default `hostgate mcp` advertises, measured as bench/context-cost.ts does)
 * stays within its budget (12 KiB, raised twice by 512 bytes: issue 22's get_largest_directories, and issue 20's
 * `host` on every direct read tool; see CONTEXT_BUDGET_BYTES). A new tool or a longer text has to pay for itself elsewhere.
 */
describe("context cost of the default tool surface", () => {
  let client: Client;
  beforeAll(async () => { client = await connectStdio("legacy", [], isolatedEnv("context-cost")); });
  afterAll(async () => { await client.close(); });

  it(`keeps the default toolsets' model-visible tools/list within ${CONTEXT_BUDGET_BYTES} bytes`, async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(20);
    const sizes = tools.map((t) => [t.name, modelVisibleBytes(t)] as const).sort((a, b) => b[1] - a[1]);
    const total = sizes.reduce((a, [, n]) => a + n, 0);
    expect(total, `model-visible tools/list is ${total} bytes; largest: ${sizes.slice(0, 5).map(([n, b]) => `${n} ${b}`).join(", ")}`).toBeLessThanOrEqual(CONTEXT_BUDGET_BYTES);
  });
});
