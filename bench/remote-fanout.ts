/**
 * Fan-out benchmark (issue 20, "Fan-out that scales"). Run as root: `npx tsx bench/remote-fanout.ts [--rounds N]
 * [--rtt 1,5]`. Starts 20 real sshd hosts in network namespaces (test/peers/netns-sshd.ts), composes a daemon
 * (in-process, the client the MCP front uses; bench/support/fanout-lab.ts) with a static inventory of them and a
 * policy that lets the caller read them and run low-risk commands, and prints ONE JSON object on stdout:
 * - cold_first_call: a new host's first `query get_memory_usage { host }` (dial + host key check + context:
 *   SFTP channel, remote os-release, hostname, systemd detection + the read), one per host, p50 over the 20;
 * - per network (`loopback`, and `rtt_<N>ms`: the same hosts reached through bench/support/delay-relay.ts adding
 *   N ms to every round trip, a daemon of its own; `tc … netem` cannot run on this kernel), in interleaved rounds:
 *   `query get_memory_usage` (what read_on_hosts sends) and `exec_on_host { command: "true" }` (sandboxed, as it
 *   runs for a model) on one warm host vs `{ hosts: all 20 }`: wall p50 and its ratio to one host (target ≤ 3),
 *   and, to tell the daemon from the hosts on this one machine, the daemon's own CPU per call / per round / per
 *   host per round (process.cpuUsage: this process is the daemon), the hosts' CPU per call / round (every
 *   process under the 20 sshd listeners), the relay's CPU per round, the machine's busy share;
 * - transport_exec_fanout_20: the daemon's own SshExecutor running `true` on the 20 hosts at once, bypassing gate,
 *   audit, sandbox and redaction: what the transport alone costs (loopback);
 * - openssh_controlmaster: `ssh -S <ControlMaster> host cat /proc/meminfo` and `… true` (the reference, same run);
 * - the 1-minute load average at the start, after each round and at the end (the machine is shared).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { Executor } from "../src/ports/executor.ts";
import { startNetnsLab } from "../test/peers/netns-sshd.ts";
import { fanoutDaemon, machineJiffies, startDelayRelay, treeCpuMs, type DelayRelay, type FanoutDaemon } from "./support/fanout-lab.ts";

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const ROUNDS = Number(opt("--rounds") ?? 3);
const RTTS = (opt("--rtt") ?? "1,5").split(",").filter(Boolean).map(Number);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || RTTS.some((x) => !Number.isInteger(x) || x < 1)) {
  console.error("usage: remote-fanout.ts [--rounds N ≥ 1] [--rtt 1,5 (whole ms ≥ 1)]");
  process.exit(2);
}
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const stats = (xs: number[]): { n: number; p50_ms: number; p90_ms: number; min_ms: number } => ({ n: xs.length, p50_ms: r2(pct(xs, 0.5)), p90_ms: r2(pct(xs, 0.9)), min_ms: r2(Math.min(...xs)) });
const load = (): number => r2(loadavg()[0]!);

/** CPU ms of the relay process (fanout-lab.ts treeCpuMs of its pid: it has no children), 0 without a relay or once it is gone. */
const relayCpuMs = (pid: number | undefined): number => (pid === undefined ? 0 : treeCpuMs([pid]));

/** What a block of calls cost: wall ms each, and the CPU of the daemon (this process), the hosts and the relay. */
interface Block { xs: number[]; daemon: number; hosts: number; relay: number; busy: number }
const blocks = new Map<string, Block[]>();

/** Runs `f` `n` times measured (after `warm` unmeasured runs) and files the block under `key`. */
async function block(key: string, n: number, hostPids: number[], relayPid: number | undefined, f: () => Promise<void>, warm = 2): Promise<void> {
  for (let i = 0; i < warm; i++) await f();
  const xs: number[] = [];
  const c0 = process.cpuUsage();
  const h0 = treeCpuMs(hostPids);
  const r0 = relayCpuMs(relayPid);
  const m0 = machineJiffies();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    xs.push(performance.now() - t);
  }
  const c = process.cpuUsage(c0);
  const m1 = machineJiffies();
  const b: Block = { xs, daemon: (c.user + c.system) / 1000, hosts: treeCpuMs(hostPids) - h0, relay: relayCpuMs(relayPid) - r0, busy: (m1.busy - m0.busy) / Math.max(1, m1.all - m0.all) };
  blocks.set(key, [...(blocks.get(key) ?? []), b]);
}

/** One kind's summary over every round: p50 and CPU per call (a call of a fan-out is a round of 20 hosts). */
function summary(key: string): { n: number; p50_ms: number; p90_ms: number; min_ms: number; daemon_cpu_ms_per_call: number; hosts_cpu_ms_per_call: number; relay_cpu_ms_per_call: number; machine_busy_fraction: number } {
  const bs = blocks.get(key) ?? [];
  const xs = bs.flatMap((b) => b.xs);
  const per = (f: (b: Block) => number): number => r2(bs.reduce((a, b) => a + f(b), 0) / xs.length);
  return { ...stats(xs), daemon_cpu_ms_per_call: per((b) => b.daemon), hosts_cpu_ms_per_call: per((b) => b.hosts), relay_cpu_ms_per_call: per((b) => b.relay), machine_busy_fraction: r2(bs.reduce((a, b) => a + b.busy, 0) / bs.length) };
}

const out: Record<string, unknown> = { load_average_start: load(), cores: availableParallelism(), rounds: ROUNDS };
const lab = await startNetnsLab(20, { sftp: true });
const work = mkdtempSync(join(tmpdir(), "hg-bench-fanout-"));
const names = lab.hosts.map((h) => h.name);
const hostPids = lab.hosts.map((h) => h.pid);
const networks: { name: string; relay?: DelayRelay; d?: FanoutDaemon }[] = [{ name: "loopback" }];
try {
  for (const rtt of RTTS) networks.push({ name: `rtt_${rtt}ms`, relay: await startDelayRelay(lab, rtt, work) });
  for (const n of networks) {
    mkdirSync(join(work, n.name));
    n.d = await fanoutDaemon(lab, join(work, n.name), n.relay ? { relay: n.relay } : {});
  }
  const read = (d: FanoutDaemon, p: { host?: string; hosts?: string[] }) => async (): Promise<void> => {
    const r = await d.agent.call("query", { action: "GetMemoryUsage", args: {}, ...p });
    if (!r.ok) throw new Error(`query failed: ${r.error.message}`);
    const errors = (r.value.data as { errors?: { host: string; message: string }[] }).errors ?? [];
    if (errors.length > 0) throw new Error(`fan-out errors: ${JSON.stringify(errors.slice(0, 3))}`);
  };
  const exec = (d: FanoutDaemon, p: { host?: string; hosts?: string[] }) => async (): Promise<void> => {
    const r = await d.agent.call("exec_on_host", { command: "true", ...p });
    if (!r.ok) throw new Error(`exec_on_host failed: ${r.error.message}`);
    const bad = r.value.results.filter((x) => x.exit_code !== 0);
    if (r.value.plan !== null || bad.length > 0) throw new Error(`exec_on_host did not run everywhere: ${JSON.stringify(bad[0] ?? r.value.plan).slice(0, 300)}`);
  };
  try {
    // Cold (loopback): the first read of each host (nothing of it cached: no connection, no context).
    const cold: number[] = [];
    for (const h of names) {
      const t = performance.now();
      await read(networks[0]!.d!, { host: h })();
      cold.push(performance.now() - t);
    }
    out.cold_first_call = stats(cold);
    // Warm every other network's connections and contexts one host at a time (20 handshakes at once on a loaded
    // 2-core machine can outlast the connect timeout), and every sandbox probe.
    for (const n of networks) {
      if (n !== networks[0]) for (const h of names) await read(n.d!, { host: h })();
      await exec(n.d!, { hosts: names })();
    }
    const loads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const n of round % 2 === 0 ? networks : [...networks].reverse()) {
        const d = n.d!;
        const rp = n.relay?.pid;
        // Each network's turn re-warms its connections (another turn can outlast the pool's 60 s idle close).
        await read(d, { hosts: names })();
        await exec(d, { hosts: names })();
        await block(`${n.name}/read_one_host`, 20, hostPids, rp, read(d, { host: names[0]! }));
        await block(`${n.name}/read_fanout_20`, 6, hostPids, rp, read(d, { hosts: names }));
        await block(`${n.name}/exec_one_host`, 10, hostPids, rp, exec(d, { host: names[0]! }));
        await block(`${n.name}/exec_fanout_20`, 4, hostPids, rp, exec(d, { hosts: names }));
      }
      loads.push(load());
    }
    out.load_average_after_each_round = loads;
    for (const n of networks) {
      const res: Record<string, unknown> = {};
      if (n.relay) res.relay = { added_rtt_ms: n.relay.rtt_ms, ...Object.fromEntries(Object.entries(await n.relay.stats()).map(([k, v]) => [k, r2(v)])) };
      for (const kind of ["read", "exec"] as const) {
        const one = summary(`${n.name}/${kind}_one_host`);
        const fan = summary(`${n.name}/${kind}_fanout_20`);
        res[`${kind}_one_host`] = { n: one.n, p50_ms: one.p50_ms, p90_ms: one.p90_ms, min_ms: one.min_ms, daemon_cpu_ms_per_call: one.daemon_cpu_ms_per_call, hosts_cpu_ms_per_call: one.hosts_cpu_ms_per_call, ...(n.relay ? { relay_cpu_ms_per_call: one.relay_cpu_ms_per_call } : {}) };
        res[`${kind}_fanout_20`] = {
          n: fan.n, p50_ms: fan.p50_ms, p90_ms: fan.p90_ms, min_ms: fan.min_ms,
          ratio_to_one_host_p50: r2(fan.p50_ms / one.p50_ms), target_ratio: 3,
          daemon_cpu_ms_per_round: fan.daemon_cpu_ms_per_call, daemon_cpu_ms_per_host_per_round: r2(fan.daemon_cpu_ms_per_call / names.length),
          hosts_cpu_ms_per_round: fan.hosts_cpu_ms_per_call, ...(n.relay ? { relay_cpu_ms_per_round: fan.relay_cpu_ms_per_call } : {}),
          machine_busy_fraction: fan.machine_busy_fraction,
        };
      }
      out[n.name] = res;
    }

    const d0 = networks[0]!.d!;
    if (!d0.deps.hostsFeature) throw new Error("the benchmark daemon has no hosts feature");
    const executor: Executor = (await d0.deps.hostsFeature()).executor;
    const raw = (i: number) => executor.exec({ target: { host: lab.hosts[i]!.ip, port: 22, user: "root" }, command: "true", timeout_ms: 10_000, max_output_bytes: 4096 });
    await block("transport_one", 30, hostPids, undefined, async () => { await raw(0); });
    await block("transport_fan", 10, hostPids, undefined, async () => { await Promise.all(names.map((_, i) => raw(i))); });
    const tone = summary("transport_one");
    const tfan = summary("transport_fan");
    out.transport_exec_one_host = { n: tone.n, p50_ms: tone.p50_ms, p90_ms: tone.p90_ms, min_ms: tone.min_ms, daemon_cpu_ms_per_call: tone.daemon_cpu_ms_per_call, hosts_cpu_ms_per_call: tone.hosts_cpu_ms_per_call };
    out.transport_exec_fanout_20 = { p50_ms: tfan.p50_ms, ratio_to_one_host_p50: r2(tfan.p50_ms / tone.p50_ms), daemon_cpu_ms_per_round: tfan.daemon_cpu_ms_per_call, daemon_cpu_ms_per_host_per_round: r2(tfan.daemon_cpu_ms_per_call / names.length), hosts_cpu_ms_per_round: tfan.hosts_cpu_ms_per_call };
  } finally {
    for (const n of networks) await n.d?.close();
  }

  // OpenSSH with a ControlMaster, the same reads, same run.
  const h0 = lab.hosts[0]!;
  const ctl = join(work, "ctl");
  const sshArgs = ["-i", lab.clientKey, "-o", `UserKnownHostsFile=${lab.knownHosts}`, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-S", ctl];
  const master = spawn("ssh", [...sshArgs, "-M", "-N", `root@${h0.ip}`], { stdio: "ignore" });
  for (let i = 0; i < 100 && !existsSync(ctl); i++) await new Promise((r) => setTimeout(r, 50));
  const ssh = (args: string[]) => (): Promise<void> => {
    const r = spawnSync("ssh", [...sshArgs, `root@${h0.ip}`, ...args]);
    return r.status === 0 ? Promise.resolve() : Promise.reject(new Error(`ssh -S failed: ${r.stderr.toString()}`));
  };
  const sshTimes = async (f: () => Promise<void>): Promise<ReturnType<typeof stats>> => {
    const xs: number[] = [];
    for (let i = 0; i < 30; i++) { const t = performance.now(); await f(); xs.push(performance.now() - t); }
    return stats(xs);
  };
  out.openssh_controlmaster = { cat_meminfo: await sshTimes(ssh(["cat", "/proc/meminfo"])), true: await sshTimes(ssh(["true"])) };
  master.kill();
} finally {
  for (const n of networks) n.relay?.stop();
  await lab.stop();
  rmSync(work, { recursive: true, force: true });
}
out.load_average_end = load();
console.log(JSON.stringify(out));
