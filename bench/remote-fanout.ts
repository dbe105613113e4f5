/**
 * Fan-out benchmark (issue 20, "Fan-out that scales"). Run as root: `npx tsx bench/remote-fanout.ts`. Starts 20
 * real sshd hosts in network namespaces (test/peers/netns-sshd.ts), composes a daemon (in-process, the client the
 * MCP front uses) with a static inventory of them and a policy that lets the caller read them and run low-risk
 * commands, and prints ONE JSON object on stdout:
 * - cold_first_call: a new host's first `query get_memory_usage { host }` (dial + host key check + context:
 *   SFTP channel, remote os-release, hostname, systemd detection + the read), one per host, p50 over the 20;
 * - read_one_host / read_fanout_20: `query get_memory_usage` on one warm host vs `{ hosts: all 20 }` (what
 *   read_on_hosts sends), p50, and their ratio (target ≤ 3);
 * - exec_one_host / exec_fanout_20: `exec_on_host { command: "true" }` likewise (sandboxed, as it runs for a model);
 * - transport_exec_fanout_20: the daemon's own SshExecutor running `true` on the 20 hosts at once, bypassing gate,
 *   audit, sandbox and redaction: what the transport alone costs;
 * - openssh_controlmaster: `ssh -S <ControlMaster> host cat /proc/meminfo` and `… true` (the reference, same run);
 * - per fan-out round: this process's CPU, the machine's busy share (the 20 sshd "hosts" share its cores, so a
 *   fan-out here queues their work behind one another: on real hosts it runs in parallel elsewhere), and the
 *   1-minute load when the run started.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigSchema } from "../src/config/schema.ts";
import { composeDaemon } from "../src/daemon/compose.ts";
import type { Executor } from "../src/ports/executor.ts";
import { startNetnsLab } from "../test/peers/netns-sshd.ts";

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const stats = (xs: number[]): { n: number; p50_ms: number; p90_ms: number; min_ms: number } => ({ n: xs.length, p50_ms: r2(pct(xs, 0.5)), p90_ms: r2(pct(xs, 0.9)), min_ms: r2(Math.min(...xs)) });

/** Runs `f` `warm` times unmeasured, then `n` times measured: wall ms each, this process's CPU and the machine's busy share. */
async function measure(n: number, f: () => Promise<void>, warm = 3): Promise<{ xs: number[]; cpu_ms_per_call: number; machine_busy_fraction: number }> {
  for (let i = 0; i < warm; i++) await f();
  const busy = (): { busy: number; all: number } => {
    const c = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    return { busy: c.reduce((a, b) => a + b, 0) - c[3]! - c[4]!, all: c.reduce((a, b) => a + b, 0) };
  };
  const xs: number[] = [];
  const cpu0 = process.cpuUsage();
  const m0 = busy();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    xs.push(performance.now() - t);
  }
  const cpu = process.cpuUsage(cpu0);
  const m1 = busy();
  return { xs, cpu_ms_per_call: r2((cpu.user + cpu.system) / 1000 / n), machine_busy_fraction: r2((m1.busy - m0.busy) / Math.max(1, m1.all - m0.all)) };
}

const out: Record<string, unknown> = { load_average: r2(loadavg()[0]!), cores: availableParallelism() };
const lab = await startNetnsLab(20, { sftp: true });
const work = mkdtempSync(join(tmpdir(), "hg-bench-fanout-"));
try {
  const policies = join(work, "policies");
  mkdirSync(policies);
  writeFileSync(join(policies, "bench.cedar"), [
    `permit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };`,
    `permit (principal, action == Hostgate::Action::"exec", resource) when { resource.tags.contains("lab") && context.risk_rank == 0 };`, "",
  ].join("\n"));
  process.env.HOSTGATE_STATE_DIR = mkdtempSync(join(work, "state-"));
  const config = ConfigSchema.parse({
    backend: { type: "mock" },
    policy: { dir: policies },
    exec: { enabled: true, known_hosts: [lab.knownHosts], identity_files: [lab.clientKey], use_agent: false, user: "root", host_keys: "strict", connect_timeout_ms: 10_000 },
    inventory: { providers: [{ kind: "static", name: "lab", cache_ttl: 0, tags: ["lab"], hosts: lab.hosts.map((h) => ({ name: h.name, address: h.ip })) }] },
  });
  const d = await composeDaemon(config, { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
  const agent = d.service.agent("bench");
  const names = lab.hosts.map((h) => h.name);
  const read = async (p: { host?: string; hosts?: string[] }): Promise<void> => {
    const r = await agent.call("query", { action: "GetMemoryUsage", args: {}, ...p });
    if (!r.ok) throw new Error(`query failed: ${r.error.message}`);
    const errors = (r.value.data as { errors?: { host: string; message: string }[] }).errors ?? [];
    if (errors.length > 0) throw new Error(`fan-out errors: ${JSON.stringify(errors.slice(0, 3))}`);
  };
  const exec = async (p: { host?: string; hosts?: string[] }): Promise<void> => {
    const r = await agent.call("exec_on_host", { command: "true", ...p });
    if (!r.ok) throw new Error(`exec_on_host failed: ${r.error.message}`);
    const bad = r.value.results.filter((x) => x.exit_code !== 0);
    if (r.value.plan !== null || bad.length > 0) throw new Error(`exec_on_host did not run everywhere: ${JSON.stringify(bad[0] ?? r.value.plan).slice(0, 300)}`);
  };
  try {
    // Cold: the first read of each host (nothing of it cached: no connection, no context).
    const cold: number[] = [];
    for (const h of names) {
      const t = performance.now();
      await read({ host: h });
      cold.push(performance.now() - t);
    }
    out.cold_first_call = stats(cold);

    const one = await measure(60, () => read({ host: names[0]! }));
    const fan = await measure(20, () => read({ hosts: names }));
    out.read_one_host = { ...stats(one.xs), cpu_ms_per_call: one.cpu_ms_per_call };
    out.read_fanout_20 = { ...stats(fan.xs), cpu_ms_per_round: fan.cpu_ms_per_call, machine_busy_fraction: fan.machine_busy_fraction, ratio_to_one_host_p50: r2(pct(fan.xs, 0.5) / pct(one.xs, 0.5)), target_ratio: 3 };

    await exec({ hosts: names }); // sandbox probes of every host (once per host, then cached)
    const eone = await measure(60, () => exec({ host: names[0]! }));
    const efan = await measure(20, () => exec({ hosts: names }));
    out.exec_one_host = { ...stats(eone.xs), cpu_ms_per_call: eone.cpu_ms_per_call };
    out.exec_fanout_20 = { ...stats(efan.xs), cpu_ms_per_round: efan.cpu_ms_per_call, machine_busy_fraction: efan.machine_busy_fraction, ratio_to_one_host_p50: r2(pct(efan.xs, 0.5) / pct(eone.xs, 0.5)), target_ratio: 3 };

    const executor: Executor = (await d.service.deps.hostsFeature!()).executor;
    const raw = (i: number) => executor.exec({ target: { host: lab.hosts[i]!.ip, port: 22, user: "root" }, command: "true", timeout_ms: 10_000, max_output_bytes: 4096 });
    const tone = await measure(60, async () => { await raw(0); });
    const tfan = await measure(20, async () => { await Promise.all(names.map((_, i) => raw(i))); });
    out.transport_exec_one_host = stats(tone.xs);
    out.transport_exec_fanout_20 = { ...stats(tfan.xs), cpu_ms_per_round: tfan.cpu_ms_per_call, ratio_to_one_host_p50: r2(pct(tfan.xs, 0.5) / pct(tone.xs, 0.5)) };
  } finally {
    await d.close();
  }

  // OpenSSH with a ControlMaster, the same reads, same run.
  const h0 = lab.hosts[0]!;
  const ctl = join(work, "ctl");
  const sshArgs = ["-i", lab.clientKey, "-o", `UserKnownHostsFile=${lab.knownHosts}`, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-S", ctl];
  const master = spawn("ssh", [...sshArgs, "-M", "-N", `root@${h0.ip}`], { stdio: "ignore" });
  for (let i = 0; i < 100 && !existsSync(ctl); i++) await new Promise((r) => setTimeout(r, 50));
  const ssh = (argv: string[]) => (): Promise<void> => {
    const r = spawnSync("ssh", [...sshArgs, `root@${h0.ip}`, ...argv]);
    return r.status === 0 ? Promise.resolve() : Promise.reject(new Error(`ssh -S failed: ${r.stderr.toString()}`));
  };
  out.openssh_controlmaster = { cat_meminfo: stats((await measure(30, ssh(["cat", "/proc/meminfo"]))).xs), true: stats((await measure(30, ssh(["true"]))).xs) };
  master.kill();
} finally {
  await lab.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
