import { readFileSync } from "node:fs";
import { pct, r2, startMcpStdio } from "./mcp-stdio-client.ts";

/** utime + stime of a process, in ms (USER_HZ = 100: 10 ms a tick). */
const cpuMs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(")")[1]!.trim().split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};

/**
 * `tools/call list_processes` (default arguments) through `hostgate mcp` over stdio, as a client sends it: the
 * server's CPU time per call (from /proc/<pid>/stat over all `calls`, so the 10 ms tick averages out) and the
 * client-side latency p50/p90. The server and client loop: mcp-stdio-client.ts (dist/ when built, else the sources
 * through tsx: `build` says which; `nodeArgs` such as --cpu-prof go to node).
 */
export async function mcpListProcesses(calls: number, nodeArgs: string[] = []): Promise<Record<string, unknown>> {
  const c = await startMcpStdio(nodeArgs);
  try {
    const args = { name: "list_processes", arguments: {} };
    for (let i = 0; i < 30; i++) await c.call("tools/call", args);
    const first = await c.call("tools/call", args);
    if (!first.result || first.result.isError) throw new Error(`list_processes failed: ${JSON.stringify(first).slice(0, 500)}`);
    const wall: number[] = [];
    const c0 = cpuMs(c.pid);
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      await c.call("tools/call", args);
      wall.push(performance.now() - t);
    }
    return {
      build: c.build,
      calls,
      processes: first.result.structuredContent?.total,
      server_cpu_ms_per_call: r2((cpuMs(c.pid) - c0) / calls),
      wall_ms: { p50: r2(pct(wall, 0.5)), p90: r2(pct(wall, 0.9)) },
    };
  } finally {
    await c.close();
  }
}
