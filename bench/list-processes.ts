/**
 * list_processes benchmark (issue 14). Prints one JSON object: wall time and CPU time of one
 * `ListProcesses` query through the daemon's query path (read /proc, parse, sort, redact, cap), p50/p90 of
 * N runs with the default arguments, and the number of processes read. Target: ≤ 5 ms p50.
 */
import { readdirSync } from "node:fs";
import { LinuxHostProbe } from "../src/adapters/host-linux.ts";
import { queryAction } from "../src/app/query.ts";
import { hostEntry } from "../src/app/hosts.ts";
import type { ActionContext } from "../src/core/catalogue/action.ts";

const N = Number(process.env.BENCH_N ?? 200);
const q = (xs: number[], p: number): number => Math.round([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]! * 100) / 100;
const ctx = { host: new LinuxHostProbe(), family: "debian", clock: { now: () => Date.now() }, self_pid: process.pid } as unknown as ActionContext;

for (let i = 0; i < 20; i++) await queryAction("ListProcesses", {}, hostEntry(ctx, "bench"));
const wall: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < N; i++) {
  const c = process.cpuUsage();
  const t = performance.now();
  const r = await queryAction("ListProcesses", {}, hostEntry(ctx, "bench"));
  wall.push(performance.now() - t);
  const d = process.cpuUsage(c);
  cpu.push((d.user + d.system) / 1000);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
}
console.log(JSON.stringify({
  bench: "list-processes",
  iterations: N,
  processes: readdirSync("/proc").filter((d) => /^\d+$/.test(d)).length,
  wall_ms: { p50: q(wall, 0.5), p90: q(wall, 0.9) },
  cpu_ms: { p50: q(cpu, 0.5), p90: q(cpu, 0.9) },
  target_wall_p50_ms: 5,
}));
