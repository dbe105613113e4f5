/**
 * Where a fan-out's time goes (issue 20, "Fan-out that scales"). Run as root:
 * `npx tsx bench/fanout-profile.ts [--old <src dir>] [--rounds N] [--cpu-prof]`. Starts 20 real sshd hosts in
 * network namespaces (test/peers/netns-sshd.ts), composes the daemon (bench/support/fanout-lab.ts) from this
 * checkout's src/ and, with `--old`, a second one from another copy of src/ (e.g. `git archive <commit> src | tar -x
 * -C /tmp/old`, node_modules linked beside it), and measures both interleaved, round by round, on the same hosts:
 * - per kind (`get_memory_usage` read and `exec_on_host true`, on one warm host and fanned out to all 20, and the
 *   fan-outs at concurrency 4, 8 and 20): wall p50, the daemon's CPU, the hosts' CPU (every process under the 20
 *   sshd listeners, reaped children included), and per call: SSH channel opens, handshakes, SFTP channels, audit
 *   appends (by kind), fsyncs (durable commits), commits, policy decisions and wasm evaluations, risk assessments,
 *   JSON.stringify calls, commands sent per purpose (sandbox probe, sandbox check, command), event-loop delay;
 * - cpu_floor: max(daemon CPU per fan-out round (one thread), (daemon + hosts CPU per round) / cores), the least
 *   wall time a round can take here where the 20 "hosts" share this machine's cores, and its ratio to one host's p50;
 * - openssh_controlmaster: the same 20 commands through `ssh -S` with one ControlMaster per host (`true`, `cat
 *   /proc/meminfo`, and the sandboxed `true` exactly as exec_on_host sends it): one host vs 20 at once, with the
 *   CPU of the ssh clients and of the hosts;
 * - with `--cpu-prof`: a V8 CPU profile (node:inspector) of 10 fan-out rounds per kind and variant, the top
 *   functions by self time (`--cpu-prof-dir D` also writes each profile to D as a .cpuprofile).
 * Each daemon's audit chain is verified at the end (`audit_verify`). `--json-callers` counts JSON.stringify calls by caller too. Prints ONE JSON object; load average at start and end.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import ssh2 from "ssh2";
import { Sandboxes } from "../src/app/sandbox.ts";
import { confine } from "../src/core/sandbox/confine.ts";
import { SshExecutor } from "../src/adapters/exec-ssh/ssh-executor.ts";
import type { HostsFeature } from "../src/app/deps.ts";
import type { PolicyEngine } from "../src/ports/policy-engine.ts";
import { startNetnsLab } from "../test/peers/netns-sshd.ts";
import { fanoutDaemon, machineJiffies, treeCpuMs, type FanoutDaemon } from "./support/fanout-lab.ts";

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const OLD = opt("--old");
const ROUNDS = Number(opt("--rounds") ?? 4);
const PROFILE = argv.includes("--cpu-prof");
const PROFILE_DIR = opt("--cpu-prof-dir");
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;

// ---- counters (global: only one daemon is driven at a time) ----
const count: Record<string, number> = {};
const bump = (k: string, n = 1): void => { count[k] = (count[k] ?? 0) + n; };
const C = ssh2.Client.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
for (const [m, k] of [["exec", "ssh_channel_opens"], ["subsys", "ssh_channel_opens"], ["sftp", "sftp_channel_opens"], ["connect", "ssh_handshakes"]] as const) {
  const orig = C[m]!;
  C[m] = function (this: unknown, ...a: unknown[]) { bump(k); return orig.apply(this, a); };
}
const stringify = JSON.stringify;
/** `--json-callers`: JSON.stringify calls are also counted by calling function (`json:<frame>`). */
const JSON_CALLERS = argv.includes("--json-callers");
JSON.stringify = function (...a: Parameters<typeof JSON.stringify>) {
  bump("json_stringify");
  if (JSON_CALLERS) bump(`json:${(new Error().stack ?? "").split("\n")[2]?.trim().replace(/\(.*\/src\//, "(").replace(/:\d+\)$/, ")") ?? "?"}`);
  return stringify.apply(JSON, a);
} as typeof JSON.stringify;

/** The hosts feature of a composed daemon (the benchmark's config always composes it). */
async function feature(d: FanoutDaemon): Promise<HostsFeature> {
  if (!d.deps.hostsFeature) throw new Error("the benchmark daemon has no hosts feature");
  return d.deps.hostsFeature();
}

/** The audit chain writer's flush, as the counter wraps it (a private member of another tree's module). */
interface FlushProto { flush: (this: { pending: unknown[] }, durable: boolean) => unknown; counted?: boolean }

/** Wraps the daemon's audit store, policy, risk engine and executor with counters. */
async function instrument(d: FanoutDaemon, src: string): Promise<void> {
  const store = d.deps.audit();
  const append = store.append.bind(store);
  store.append = (e, o) => { bump(`audit_append:${e.kind}`); if (o?.durable) bump("audit_durable_appends"); return append(e, o); };
  const mod = await import(pathToFileURL(join(src, "adapters/audit-chain-writer.ts")).href) as { ChainWriter: { prototype: FlushProto } };
  const proto = mod.ChainWriter.prototype;
  if (!proto.counted) {
    const flush = proto.flush;
    proto.counted = true;
    proto.flush = function (durable) {
      if (this.pending.length > 0) bump(durable ? "audit_fsync_commits" : "audit_commits_no_fsync");
      return flush.call(this, durable);
    };
  }
  const f = await feature(d);
  if (f.policy) {
    const policy = f.policy as PolicyEngine & { evaluate?: (...a: unknown[]) => unknown };
    const decide = policy.decide.bind(policy);
    policy.decide = (r) => { bump("policy_decide"); return decide(r); };
    const ev = policy.evaluate?.bind(policy);
    if (ev) policy.evaluate = (...a) => { bump("policy_wasm_eval"); return ev(...a); };
  }
  const engine = await f.engine;
  const assess = engine.assess.bind(engine);
  engine.assess = (...a) => { bump("risk_assess"); return assess(...a); };
  const exec = f.executor.exec.bind(f.executor);
  f.executor.exec = (req) => {
    bump(req.command.includes("hostgate-sandbox-ok") ? "cmd_sandbox_check" : req.command.includes("has=") ? "cmd_sandbox_probe" : "cmd_command");
    return exec(req);
  };
}

interface Block { xs: number[]; daemon_cpu: number; host_cpu: number; busy: number; counts: Record<string, number>; eld_p99: number; eld_max: number }
const blocks = new Map<string, Block[]>();

async function block(key: string, n: number, hostPids: number[], f: () => Promise<void>): Promise<void> {
  for (const k of Object.keys(count)) count[k] = 0;
  const eld = monitorEventLoopDelay({ resolution: 1 });
  const xs: number[] = [];
  const c0 = process.cpuUsage();
  const h0 = treeCpuMs(hostPids);
  const m0 = machineJiffies();
  eld.enable();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    xs.push(performance.now() - t);
  }
  eld.disable();
  const c = process.cpuUsage(c0);
  const m1 = machineJiffies();
  const b: Block = {
    xs, daemon_cpu: (c.user + c.system) / 1000, host_cpu: treeCpuMs(hostPids) - h0, busy: (m1.busy - m0.busy) / Math.max(1, m1.all - m0.all),
    counts: { ...count }, eld_p99: eld.percentile(99) / 1e6, eld_max: eld.max / 1e6,
  };
  blocks.set(key, [...(blocks.get(key) ?? []), b]);
}

function summary(key: string): Record<string, unknown> {
  const bs = blocks.get(key) ?? [];
  const xs = bs.flatMap((b) => b.xs);
  const n = xs.length;
  const counts: Record<string, number> = {};
  for (const b of bs) for (const [k, v] of Object.entries(b.counts)) if (v > 0) counts[k] = (counts[k] ?? 0) + v;
  return {
    n, p50_ms: r2(pct(xs, 0.5)), p90_ms: r2(pct(xs, 0.9)), min_ms: r2(Math.min(...xs)),
    daemon_cpu_ms_per_call: r2(bs.reduce((a, b) => a + b.daemon_cpu, 0) / n),
    host_cpu_ms_per_call: r2(bs.reduce((a, b) => a + b.host_cpu, 0) / n),
    machine_busy_fraction: r2(bs.reduce((a, b) => a + b.busy, 0) / bs.length),
    event_loop_delay_p99_ms: r2(Math.max(...bs.map((b) => b.eld_p99))), event_loop_delay_max_ms: r2(Math.max(...bs.map((b) => b.eld_max))),
    per_call: Object.fromEntries(Object.entries(counts).sort().map(([k, v]) => [k, r2(v / n)])),
  };
}

const out: Record<string, unknown> = { load_average_start: loadavg().map(r2), cores: availableParallelism(), rounds: ROUNDS };
const lab = await startNetnsLab(20, { sftp: true });
const work = mkdtempSync(join(tmpdir(), "hg-bench-fanprof-"));
const hostPids = lab.hosts.map((h) => h.pid);
const names = lab.hosts.map((h) => h.name);
const variants: { name: string; src: string; d?: FanoutDaemon }[] = [{ name: "new", src: new URL("../src", import.meta.url).pathname }];
if (OLD) variants.unshift({ name: "old", src: OLD });
try {
try {
  for (const v of variants) {
    mkdirSync(join(work, v.name));
    v.d = await fanoutDaemon(lab, join(work, v.name), { srcRoot: v.src });
    await instrument(v.d, v.src);
  }
  const read = (d: FanoutDaemon, p: { host?: string; hosts?: string[] }) => async (): Promise<void> => {
    const r = await d.agent.call("query", { action: "GetMemoryUsage", args: {}, ...p });
    if (!r.ok) throw new Error(`query failed: ${r.error.message}`);
    const errors = (r.value.data as { errors?: unknown[] }).errors ?? [];
    if (errors.length > 0) throw new Error(`fan-out errors: ${stringify(errors.slice(0, 3))}`);
  };
  const exec = (d: FanoutDaemon, p: { host?: string; hosts?: string[] }) => async (): Promise<void> => {
    const r = await d.agent.call("exec_on_host", { command: "true", ...p });
    if (!r.ok) throw new Error(`exec_on_host failed: ${r.error.message}`);
    const bad = (r.value.results as { exit_code: number | null }[]).filter((x) => x.exit_code !== 0);
    if (r.value.plan !== null || bad.length > 0) throw new Error(`exec_on_host did not run everywhere: ${stringify(bad[0] ?? r.value.plan).slice(0, 300)}`);
  };
  // Warm: every connection, context and sandbox probe of both daemons (cold costs are bench/remote-fanout.ts's),
  // one host at a time (20 handshakes at once on a loaded 2-core machine can outlast the connect timeout).
  for (const v of variants) {
    for (const h of names) await read(v.d!, { host: h })();
    await read(v.d!, { hosts: names })();
    await exec(v.d!, { hosts: names })();
    for (let i = 0; i < 3; i++) { await read(v.d!, { host: names[0]! })(); await exec(v.d!, { host: names[0]! })(); }
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const v of order) {
      const d = v.d!;
      const f = await feature(d);
      const conc0 = f.settings.fanout_concurrency;
      // The other variant's turn can outlast the pool's idle close (60 s): every connection is warm again first.
      await read(d, { hosts: names })();
      await exec(d, { hosts: names })();
      await block(`${v.name}/read_one_host`, 15, hostPids, read(d, { host: names[0]! }));
      await block(`${v.name}/read_fanout_20`, 5, hostPids, read(d, { hosts: names }));
      await block(`${v.name}/exec_one_host`, 10, hostPids, exec(d, { host: names[0]! }));
      await block(`${v.name}/exec_fanout_20`, 4, hostPids, exec(d, { hosts: names }));
      for (const c of [4, 8, 20]) {
        f.settings.fanout_concurrency = c;
        await block(`${v.name}/read_fanout_20_c${c}`, 3, hostPids, read(d, { hosts: names }));
        await block(`${v.name}/exec_fanout_20_c${c}`, 3, hostPids, exec(d, { hosts: names }));
      }
      f.settings.fanout_concurrency = conc0;
    }
  }
  const cores = availableParallelism();
  for (const v of variants) {
    const res: Record<string, unknown> = {};
    for (const k of [...blocks.keys()].filter((k) => k.startsWith(`${v.name}/`))) res[k.slice(v.name.length + 1)] = summary(k);
    for (const kind of ["read", "exec"]) {
      const one = res[`${kind}_one_host`] as { p50_ms: number };
      const fan = res[`${kind}_fanout_20`] as { p50_ms: number; daemon_cpu_ms_per_call: number; host_cpu_ms_per_call: number };
      // The daemon is one thread: its CPU per round cannot be spread over the cores; everything together can at best.
      const floor = Math.max(fan.daemon_cpu_ms_per_call, (fan.daemon_cpu_ms_per_call + fan.host_cpu_ms_per_call) / cores);
      res[`${kind}_ratio`] = r2(fan.p50_ms / one.p50_ms);
      res[`${kind}_cpu_floor`] = { ms_per_round: r2(floor), ratio_to_one_host_p50: r2(floor / one.p50_ms), daemon_cpu_ms_per_round: fan.daemon_cpu_ms_per_call, hosts_cpu_ms_per_round: fan.host_cpu_ms_per_call };
    }
    // Every fan-out's entries are in the chain and it still verifies (signatures included).
    const verdict = await v.d!.deps.audit().verify({ signatures: true });
    res.audit_verify = { status: verdict.status, ...("last_seq" in verdict ? { entries: verdict.last_seq } : {}), ...("detail" in verdict ? { detail: verdict.detail } : {}) };
    out[v.name] = res;
  }

  if (PROFILE) {
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    const prof: Record<string, unknown> = {};
    for (const v of variants) {
      for (const [kind, f] of [["read_fanout_20", read(v.d!, { hosts: names })], ["exec_fanout_20", exec(v.d!, { hosts: names })]] as const) {
        await session.post("Profiler.start");
        for (let i = 0; i < 10; i++) await f();
        const { profile } = await session.post("Profiler.stop");
        prof[`${v.name}/${kind}`] = topSelf(profile as unknown as CpuProfile, 20);
        if (PROFILE_DIR) writeFileSync(join(PROFILE_DIR, `${v.name}-${kind}.cpuprofile`), stringify(profile));
      }
    }
    session.disconnect();
    out.cpu_profile_top_self_ms_per_round = prof;
  }
} finally {
  for (const v of variants) await v.d?.close();
}

// ---- OpenSSH ControlMaster: one master per host, then the same commands, one host vs all 20 at once ----
  const sshArgs = (i: number): string[] => ["-i", lab.clientKey, "-o", `UserKnownHostsFile=${lab.knownHosts}`, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-S", join(work, `ctl${i}`)];
  const masters = lab.hosts.map((h, i) => spawn("ssh", [...sshArgs(i), "-M", "-N", `root@${h.ip}`], { stdio: "ignore" }));
  for (let i = 0; i < 200 && !lab.hosts.every((_, k) => existsSync(join(work, `ctl${k}`))); i++) await new Promise((r) => setTimeout(r, 50));
  const ssh = (i: number, command: string): Promise<void> => new Promise((resolve, reject) => {
    const p = spawn("ssh", [...sshArgs(i), `root@${lab.hosts[i]!.ip}`, command], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    p.stderr.on("data", (b: Buffer) => { err += b.toString(); });
    p.on("close", (code) => { if (code === 0) resolve(); else reject(new Error(`ssh -S exited ${code}: ${err}`)); });
  });
  const ex = new SshExecutor({ known_hosts: [lab.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [lab.clientKey], connect_timeout_ms: 10_000 });
  const sb = await new Sandboxes().forHost({ key: "h0", executor: ex, target: { host: lab.hosts[0]!.ip, port: 22 } });
  ex.close();
  const boxed = confine(["sh", "-c", "true"], sb, { network: "none", timeout_sec: 10, run_id: "bench" }).command;
  const selfChildrenCpu = (): number => { const x = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" "); return (Number(x[13]) + Number(x[14])) * 10; };
  const cm: Record<string, unknown> = {};
  for (const [label, command] of [["true", "true"], ["cat_meminfo", "cat /proc/meminfo"], ["sandboxed_true", boxed]] as const) {
    const one: number[] = [];
    const fan: number[] = [];
    let clientCpu = 0;
    let hostCpu = 0;
    for (let round = 0; round < ROUNDS * 3; round++) {
      for (let k = 0; k < 3; k++) { const t = performance.now(); await ssh(0, command); one.push(performance.now() - t); }
      const c0 = selfChildrenCpu();
      const h0 = treeCpuMs(hostPids);
      const t = performance.now();
      await Promise.all(lab.hosts.map((_, i) => ssh(i, command)));
      fan.push(performance.now() - t);
      clientCpu += selfChildrenCpu() - c0;
      hostCpu += treeCpuMs(hostPids) - h0;
    }
    const perRound = (clientCpu + hostCpu) / fan.length;
    cm[label] = {
      one_host_p50_ms: r2(pct(one, 0.5)), fanout_20_p50_ms: r2(pct(fan, 0.5)), ratio: r2(pct(fan, 0.5) / pct(one, 0.5)),
      ssh_clients_cpu_ms_per_round: r2(clientCpu / fan.length), hosts_cpu_ms_per_round: r2(hostCpu / fan.length),
      cpu_floor_ms_per_round: r2(perRound / availableParallelism()), cpu_floor_ratio_to_one_host_p50: r2(perRound / availableParallelism() / pct(one, 0.5)),
    };
  }
  out.openssh_controlmaster = cm;
  for (const m of masters) m.kill();
} finally {
  await lab.stop();
  rmSync(work, { recursive: true, force: true });
}
out.load_average_end = loadavg().map(r2);
console.log(stringify(out));

interface CpuProfile { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] }[]; samples: number[]; timeDeltas: number[] }

/**
 * The `n` functions with the most self time in `p`, in ms per round (10 rounds profiled). Samples under the
 * inspector's own `post` (node:inspector: starting and stopping the profiler, ≈ 30–50 ms "dispatch" a round) are
 * the measurement, not the daemon, and are left out.
 */
function topSelf(p: CpuProfile, n: number): Record<string, number> {
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const parent = new Map<number, number>();
  for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const ours = (id: number): boolean => {
    for (let k: number | undefined = id; k !== undefined; k = parent.get(k)) if (byId.get(k)!.callFrame.url === "node:inspector") return true;
    return false;
  };
  const self = new Map<string, number>();
  p.samples.forEach((id, i) => {
    if (ours(id)) return;
    const node = byId.get(id)!;
    const f = node.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url ? `${basename(f.url)}:${f.lineNumber + 1}` : ""}`.trim();
    self.set(key, (self.get(key) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return Object.fromEntries([...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, r2(v / 10)]));
}
