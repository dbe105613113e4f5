/**
 * The measured part of bench/list-processes.ts, run as an esbuild bundle (as dist/ ships it) in its own Node
 * process. Prints one JSON object: wall and CPU time (user + system, process.cpuUsage) of one `ListProcesses`
 * query through the daemon's query path (read /proc, parse, filter, sort, page, read argv, redact, cap), p50/p90
 * over BENCH_N runs per argument set, and the process count each run saw (the result's `total`).
 */
import { LinuxHostProbe } from "../../src/adapters/host-linux.ts";
import { queryAction } from "../../src/app/query.ts";
import { hostEntry } from "../../src/app/hosts.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";

const N = Number(process.env.BENCH_N ?? 200);
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const ctx = { host: new LinuxHostProbe(), family: "debian", clock: { now: () => Date.now() }, self_pid: process.pid } as unknown as ActionContext;
const host = hostEntry(ctx, "bench");

/** Default arguments (the figure), a whole table, and a name filter (reads every command line). */
const CASES: Record<string, Record<string, unknown>> = { default: {}, limit_500: { limit: 500 }, name_filter: { name: "node" } };

const out: Record<string, unknown> = {};
for (const [label, args] of Object.entries(CASES)) {
  for (let i = 0; i < 20; i++) await queryAction("ListProcesses", args, host);
  const wall: number[] = [];
  const cpu: number[] = [];
  const procs: number[] = [];
  for (let i = 0; i < N; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    const r = await queryAction("ListProcesses", args, host);
    wall.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    if (label !== "name_filter") procs.push((r.value.data as { total: number }).total);
  }
  out[label] = {
    wall_ms: { p50: r2(pct(wall, 0.5)), p90: r2(pct(wall, 0.9)) },
    cpu_ms: { p50: r2(pct(cpu, 0.5)), p90: r2(pct(cpu, 0.9)) },
    ...(procs.length > 0 ? { processes: pct(procs, 0.5), cpu_us_per_process: Math.round((pct(cpu, 0.5) * 1000) / pct(procs, 0.5)) } : {}),
  };
}
console.log(JSON.stringify({ iterations: N, ...out }));
