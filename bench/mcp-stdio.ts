/**
 * MCP front benchmark over stdio (issue: foundation). Prints one JSON object:
 * - cold_start_ms: spawn of `hostgate mcp` → answer to tools/list (initialize first), median and p90 of N runs;
 * - tools_call_us: p50/p99 latency of tools/call for get_memory_usage and get_disk_usage over stdio;
 * - rss_mb_after_calls: resident set of the server process after all calls.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";
import { timeToToolsList } from "./support/time-to-tools-list.ts";

const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const cold: number[] = [];
for (let i = 0; i < COLD_RUNS; i++) cold.push(await timeToToolsList(HOSTGATE_BIN, ["mcp"]));
cold.sort((a, b) => a - b);

// Spawned as an installed binary is (through its shebang), as clients configured per the README do.
const transport = new StdioClientTransport({ command: HOSTGATE_BIN, args: ["mcp"], stderr: "ignore" });
const client = new Client({ name: "bench", version: "1" });
await client.connect(transport);
const calls: Record<string, { p50_us: number; p99_us: number }> = {};
for (const tool of ["get_memory_usage", "get_disk_usage"]) {
  for (let i = 0; i < 50; i++) await client.callTool({ name: tool, arguments: {} });
  const lat: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await client.callTool({ name: tool, arguments: {} });
    lat.push((performance.now() - t) * 1000);
  }
  lat.sort((a, b) => a - b);
  calls[tool] = { p50_us: Math.round(quantile(lat, 0.5)), p99_us: Math.round(quantile(lat, 0.99)) };
}
const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${transport.pid}/status`, "utf8"))?.[1] ?? 0);
await client.close();

console.log(JSON.stringify({
  bench: "mcp-stdio",
  cold_start_ms: { runs: COLD_RUNS, median: Math.round(quantile(cold, 0.5)), p90: Math.round(quantile(cold, 0.9)), min: Math.round(cold[0]!) },
  tools_call_us: calls,
  calls_per_tool: CALLS + 50,
  rss_mb_after_calls: Math.round(rssKb / 1024),
  targets: { cold_start_ms: 400, proc_tool_p50_us: 2000, spawn_tool_p50_us: 10000, rss_mb: 90 },
}));
