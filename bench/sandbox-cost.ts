/**
 * The sandbox's cost per command on `local` (issue 19; target ≤ 10 ms added to the exec p50), without the
 * SSH lab of hosts-exec.ts: run as root, `npx tsx bench/sandbox-cost.ts [rounds]`. The same `sh -c true`
 * plain and confined (core/sandbox: the host's mechanism, network none, through the local executor),
 * interleaved round by round so a loaded machine slows both alike. Prints ONE JSON object: wall p50/p90 of
 * each, the added p50, and CPU per command (user + system of the waited children, from /proc/self/stat, in ms)
 * — the steadier figure on a shared machine — with the mechanism and the wrapper's exec count.
 */
import { readFileSync } from "node:fs";
import { LocalExecutor } from "../src/adapters/exec-local.ts";
import { Sandboxes } from "../src/app/sandbox.ts";
import { shellJoin } from "../src/core/inventory/target.ts";
import { confine } from "../src/core/sandbox/confine.ts";

const rounds = Number(process.argv[2] ?? 150);
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
/** CPU time of this process's waited-for children, in ms (clock ticks of 10 ms). */
const childCpuMs = (): number => {
  const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(f[13]) + Number(f[14])) * 10;
};

const ex = new LocalExecutor();
const target = { host: "localhost", port: 0 };
const sb = await new Sandboxes().forHost({ key: "local", executor: ex, target });
const commands = {
  plain: `exec ${shellJoin(["sh", "-c", "true"])}`,
  sandboxed: confine(["sh", "-c", "true"], sb, { network: "none", timeout_sec: 10, run_id: "bench" }).command,
};
const wall: Record<string, number[]> = { plain: [], sandboxed: [] };
const cpu: Record<string, number> = { plain: 0, sandboxed: 0 };
for (let i = 0; i < rounds + 10; i++) {
  for (const [name, command] of Object.entries(commands)) {
    const c0 = childCpuMs();
    const t = performance.now();
    const r = await ex.exec({ target, command, timeout_ms: 10_000, max_output_bytes: 4096 });
    if (r.exit_code !== 0) throw new Error(`${name} failed: ${r.stderr}`);
    if (i < 10) continue;
    wall[name]!.push(performance.now() - t);
    cpu[name]! += childCpuMs() - c0;
  }
}
const stats = (xs: number[]): { p50_ms: number; p90_ms: number } => ({ p50_ms: r2(pct(xs, 0.5)), p90_ms: r2(pct(xs, 0.9)) });
console.log(JSON.stringify({
  mechanism: sb.mechanism, identity: sb.identity, memory_cgroup: sb.facts.memcg ?? null, rounds,
  plain: { ...stats(wall.plain!), cpu_ms_per_command: r2(cpu.plain! / rounds) },
  sandboxed: { ...stats(wall.sandboxed!), cpu_ms_per_command: r2(cpu.sandboxed! / rounds) },
  added_p50_ms: r2(pct(wall.sandboxed!, 0.5) - pct(wall.plain!, 0.5)),
  added_cpu_ms_per_command: r2((cpu.sandboxed! - cpu.plain!) / rounds),
  target_added_p50_ms: 10,
}));
