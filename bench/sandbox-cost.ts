/**
 * The sandbox's cost per command on `local` (issue 19; target ≤ 10 ms added to the exec p50), without the
 * SSH lab of hosts-exec.ts: run as root, `npx tsx bench/sandbox-cost.ts [rounds] [--ideas]`. The same
 * `sh -c true` plain and confined (core/sandbox, network none, through the local executor) by each local
 * mechanism: `bwrap` (timeout → setpriv → bwrap) and `hostgate-confine` (the in-tree helper, compiled here
 * from native/confine-helper.c), interleaved round by round so a loaded machine slows all alike. `--ideas`
 * adds variants measured for the record only (not shipped): the bwrap chain without its `timeout`, the
 * helper built with glibc (`cc -static`, what the build falls back to without musl-gcc), the helper linked
 * dynamically, and the helper keeping the host's network namespace. `--before REF` adds the
 * helper compiled from native/confine-helper.c as it was at git REF, with the same options, so a change's
 * before and after are measured in one run at the same load (a helper without `--scope-unix` gets the
 * `--unshare-net` it used instead, one without `--tmpfs-size` none). It is built with `cc -static` (glibc), as the
 * build did before it preferred musl-gcc.
 * `bwrap as nobody` and `hostgate-confine as nobody` are the same mechanisms without a uid of their own per run
 * (RUN_UID_POOL: what they cost before it), so the uid lock's added cost is their difference.
 * Prints ONE JSON object: per variant wall p50/p95 and CPU per command (user + system of the waited
 * children, from /proc/self/stat, in ms: the steadier figure on a shared machine), and each one's added p50
 * and CPU over plain. CPU the kernel spends in its own workers (a network namespace's teardown) is not seen.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalExecutor } from "../src/adapters/exec-local.ts";
import { buildConfineHelper, confineHelperSource } from "../src/adapters/confine-helper.ts";
import { Sandboxes } from "../src/app/sandbox.ts";
import { shellJoin } from "../src/core/inventory/target.ts";
import { chooseSandbox, confine, type HostSandbox } from "../src/core/sandbox/confine.ts";

const rounds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 200);
const ideas = process.argv.includes("--ideas");
const beforeAt = process.argv.indexOf("--before");
const beforeRef = beforeAt > 0 ? process.argv[beforeAt + 1] : undefined;
if (beforeAt > 0 && (beforeRef === undefined || !/^[\w./~^-]+$/.test(beforeRef))) throw new Error("--before needs a git ref, e.g. --before main");
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
/** CPU time of this process's waited-for children, in ms (clock ticks of 10 ms). */
const childCpuMs = (): number => {
  const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(f[13]) + Number(f[14])) * 10;
};

/** `sb` as it is on a host where the per-run uid pool clashes with an account: commands run as `nobody`. */
const asNobody = (sb: HostSandbox): HostSandbox => chooseSandbox({ ...sb.facts, uid_pool_clash: ["bench: as before per-run uids"] });

const dir = mkdtempSync(join(tmpdir(), "hg-bench-confine-"));
try {
  const helper = buildConfineHelper(join(dir, "hostgate-confine"));
  const ex = new LocalExecutor();
  const target = { host: "localhost", port: 0 };
  const bwrap = await new Sandboxes().forHost({ key: "local", executor: ex, target });
  const confined = await new Sandboxes({ local_helper: helper }).forHost({ key: "local", executor: ex, target });
  if (bwrap.mechanism !== "bwrap" || confined.mechanism !== "hostgate-confine") throw new Error(`mechanisms: ${bwrap.summary} / ${confined.summary}`);
  const opts = { network: "none", timeout_sec: 10, run_id: "bench" } as const;
  const commands: Record<string, string> = {
    plain: `exec ${shellJoin(["sh", "-c", "true"])}`,
    bwrap: confine(["sh", "-c", "true"], bwrap, opts).command,
    "hostgate-confine": confine(["sh", "-c", "true"], confined, opts).command,
    // The same mechanisms as `nobody`, as before a uid of its own per run (RUN_UID_POOL): the pool made to clash.
    "bwrap as nobody": confine(["sh", "-c", "true"], asNobody(bwrap), opts).command,
    "hostgate-confine as nobody": confine(["sh", "-c", "true"], asNobody(confined), opts).command,
  };
  if (beforeRef !== undefined) {
    const src = join(dir, "before.c");
    const old = join(dir, "hostgate-confine-before");
    writeFileSync(src, execFileSync("git", ["show", `${beforeRef}:native/confine-helper.c`]));
    execFileSync("cc", ["-O2", "-static", "-o", old, src]);
    // An older helper lacks --scope-unix: it isolated abstract sockets with a network namespace (--unshare-net).
    const knows = execFileSync("git", ["show", `${beforeRef}:native/confine-helper.c`], { encoding: "utf8" }).includes("--scope-unix");
    // Nor --tmpfs-size (its tmpfs had no cap) before this change.
    const sized = execFileSync("git", ["show", `${beforeRef}:native/confine-helper.c`], { encoding: "utf8" }).includes("--tmpfs-size");
    commands[`hostgate-confine at ${beforeRef}`] = commands["hostgate-confine as nobody"]!.replace(helper, old).replace(knows ? /$^/ : " --scope-unix ", " --unshare-net ").replace(sized ? /$^/ : / --tmpfs-size \d+/, "");
  }
  if (ideas) {
    const dynamic = join(dir, "hostgate-confine-dynamic");
    execFileSync("cc", ["-O2", "-o", dynamic, confineHelperSource()!]);
    const glibc = join(dir, "hostgate-confine-glibc");
    execFileSync("cc", ["-O2", "-static", "-o", glibc, confineHelperSource()!]);
    commands["idea: helper built with glibc (cc -static)"] = commands["hostgate-confine"]!.replace(helper, glibc);
    commands["idea: bwrap without timeout"] = commands.bwrap!.replace(/\S*timeout --foreground -s KILL \d+ /, "");
    commands["idea: helper linked dynamically"] = commands["hostgate-confine"]!.replace(helper, dynamic);
    commands["idea: helper in the host's network namespace"] = confine(["sh", "-c", "true"], confined, { ...opts, host_network_view: true }).command;
  }
  const wall: Record<string, number[]> = {};
  const cpu: Record<string, number> = {};
  for (const name of Object.keys(commands)) { wall[name] = []; cpu[name] = 0; }
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
  const loadavg = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number);
  const variants = Object.fromEntries(Object.keys(commands).map((name) => [name, {
    p50_ms: r2(pct(wall[name]!, 0.5)), p95_ms: r2(pct(wall[name]!, 0.95)), cpu_ms_per_command: r2(cpu[name]! / rounds),
    added_p50_ms: r2(pct(wall[name]!, 0.5) - pct(wall.plain!, 0.5)), added_cpu_ms_per_command: r2((cpu[name]! - cpu.plain!) / rounds),
  }]));
  console.log(JSON.stringify({ rounds, loadavg, identity: confined.identity, memory_cgroup: confined.facts.memcg ?? null, variants, target_added_p50_ms: 10 }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
