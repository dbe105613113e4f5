/**
 * Hosts benchmark, SSH exec (issue 10). Run as root: `npx tsx bench/hosts-exec.ts`. Starts 20 real sshd hosts
 * in network namespaces (test/peers/netns-sshd.ts) and prints ONE JSON object on stdout:
 * - openssh_controlmaster: `ssh -S <ControlMaster socket> host true` p50 (the reference point, same run);
 * - executor_warm / executor_cold: the SSH executor alone, `true` on a pooled connection / first dial;
 * - fanout_20: one command on 20 hosts over warm connections, p50, and its ratio to one host (target ≤ 3×),
 *   with the executor's CPU per round and the machine's busy share meanwhile (the 20 sshds share its cores);
 * - mcp_warm: exec_on_host `true` through `hostgate mcp` (stdio, SDK client, embedded daemon) p50 (target
 *   ≤ 15 ms), when the build in dist/ is present;
 * - sandbox: what confining an unapproved command costs (issue 19, target ≤ 10 ms added to the warm p50):
 *   `sh -c true` plain vs inside the host's sandbox (core/sandbox: bubblewrap after setpriv here), over a warm
 *   SSH connection and on local (the local executor), with the mechanism used.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { SshExecutor } from "../src/adapters/exec-ssh/ssh-executor.ts";
import { LocalExecutor } from "../src/adapters/exec-local.ts";
import { Sandboxes } from "../src/app/sandbox.ts";
import { shellJoin } from "../src/core/inventory/target.ts";
import { confine } from "../src/core/sandbox/confine.ts";
import type { Executor } from "../src/ports/executor.ts";
import { machineJiffies } from "./support/fanout-lab.ts";
import { startNetnsLab } from "../test/peers/netns-sshd.ts";
import { mcpWarmExec } from "./support/hosts-exec-mcp.ts";

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const stats = (xs: number[]): { n: number; p50_ms: number; p90_ms: number; min_ms: number } => ({ n: xs.length, p50_ms: r2(pct(xs, 0.5)), p90_ms: r2(pct(xs, 0.9)), min_ms: r2(Math.min(...xs)) });

const lab = await startNetnsLab(20);
const out: Record<string, unknown> = {};
try {
  const opts = { known_hosts: [lab.knownHosts], host_keys: "strict" as const, default_user: "root", default_identity_files: [lab.clientKey], connect_timeout_ms: 5000 };
  const h0 = lab.hosts[0]!;
  const req = (i: number) => ({ target: { host: lab.hosts[i]!.ip, port: 22 }, command: "true", timeout_ms: 10_000, max_output_bytes: 4096 });

  // OpenSSH ControlMaster, same host, same run.
  const ctl = join(mkdtempSync(join(tmpdir(), "hg-bench-ctl-")), "ctl");
  const sshArgs = ["-i", lab.clientKey, "-o", `UserKnownHostsFile=${lab.knownHosts}`, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-S", ctl];
  const master = spawn("ssh", [...sshArgs, "-M", "-N", `root@${h0.ip}`], { stdio: "ignore" });
  for (let i = 0; i < 100 && !existsSync(ctl); i++) await new Promise((r) => setTimeout(r, 50));
  const cm: number[] = [];
  for (let i = 0; i < 60; i++) {
    const t = performance.now();
    const r = spawnSync("ssh", [...sshArgs, `root@${h0.ip}`, "true"]);
    if (r.status !== 0) throw new Error(`ssh -S failed: ${r.stderr.toString()}`);
    if (i >= 10) cm.push(performance.now() - t);
  }
  master.kill();
  out.openssh_controlmaster = stats(cm);

  // Executor cold (first dial) and warm.
  const cold: number[] = [];
  for (let i = 0; i < 10; i++) {
    const e = new SshExecutor(opts);
    const t = performance.now();
    await e.exec(req(i % 20));
    cold.push(performance.now() - t);
    e.close();
  }
  out.executor_cold = stats(cold);
  const e = new SshExecutor(opts);
  for (let i = 0; i < 20; i++) await e.exec(req(0));
  const warm: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    await e.exec(req(0));
    warm.push(performance.now() - t);
  }
  out.executor_warm = stats(warm);

  // The sandbox's cost per command (issue 19): the same `sh -c true`, plain and confined.
  const sandboxCost = async (ex: Executor, key: string, target: { host: string; port: number }): Promise<Record<string, unknown>> => {
    const sb = await new Sandboxes().forHost({ key, executor: ex, target });
    const plain = `exec ${shellJoin(["sh", "-c", "true"])}`;
    const boxed = confine(["sh", "-c", "true"], sb, { network: "none", timeout_sec: 10, run_id: "bench" }).command;
    const time = async (command: string): Promise<number[]> => {
      const xs: number[] = [];
      for (let i = 0; i < 120; i++) {
        const t = performance.now();
        const r = await ex.exec({ target, command, timeout_ms: 10_000, max_output_bytes: 4096 });
        if (r.exit_code !== 0) throw new Error(`bench command failed: ${r.stderr}`);
        if (i >= 20) xs.push(performance.now() - t);
      }
      return xs;
    };
    const a = await time(plain);
    const b = await time(boxed);
    return { mechanism: sb.mechanism, identity: sb.identity, plain: stats(a), sandboxed: stats(b), added_p50_ms: r2(pct(b, 0.5) - pct(a, 0.5)), target_added_p50_ms: 10 };
  };
  out.sandbox = {
    ssh_warm: await sandboxCost(e, "bench-ssh", { host: h0.ip, port: 22 }),
    local: await sandboxCost(new LocalExecutor(), "local", { host: "localhost", port: 0 }),
  };

  // Fan-out to 20 hosts on warm connections vs one host.
  await Promise.all(lab.hosts.map((_, i) => e.exec(req(i))));
  // Where a round's time goes: this process's CPU (the executor: ssh2 crypto, channel set-up) and the whole
  // machine's busy share from /proc/stat (the 20 sshd "hosts" share this machine's cores: on real hosts their
  // work runs in parallel elsewhere, here it queues behind one another).
  const fan: number[] = [];
  const cpu0 = process.cpuUsage();
  const m0 = machineJiffies();
  for (let k = 0; k < 30; k++) {
    const t = performance.now();
    await Promise.all(lab.hosts.map((_, i) => e.exec(req(i))));
    fan.push(performance.now() - t);
  }
  const cpu = process.cpuUsage(cpu0);
  const m1 = machineJiffies();
  out.fanout_20 = {
    ...stats(fan), ratio_to_one_host_p50: r2(pct(fan, 0.5) / pct(warm, 0.5)), target_ratio: 3,
    executor_cpu_ms_per_round: r2((cpu.user + cpu.system) / 1000 / 30),
    machine_busy_fraction: r2((m1.busy - m0.busy) / (m1.all - m0.all)), cores: availableParallelism(),
  };
  e.close();

  // Through MCP (stdio) with the embedded daemon.
  const cfgDir = mkdtempSync(join(tmpdir(), "hg-bench-mcp-"));
  const policyDir = join(cfgDir, "policies");
  spawnSync("mkdir", ["-p", policyDir]);
  writeFileSync(join(policyDir, "bench.cedar"), `permit (principal, action == Hostgate::Action::"exec", resource) when { context.risk_rank == 0 };\n`);
  out.mcp_warm = process.env.BENCH_SKIP_MCP === "1" ? { skipped: "BENCH_SKIP_MCP=1" } : await mcpWarmExec({ lab, cfgDir, policyDir });
  out.target_mcp_warm_p50_ms = 15;
} finally {
  await lab.stop();
}
console.log(JSON.stringify(out));
