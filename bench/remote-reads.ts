/**
 * Remote reads benchmark (issue 20). Run as root: `npx tsx bench/remote-reads.ts`. Starts one real sshd on
 * loopback (test/peers/sshd.ts; the remote host is this machine) and prints ONE JSON object on stdout:
 * - cold_first_call_ms: a new pool → dial, SFTP channel, remote os-release + hostname (sshActionContext) →
 *   first get_memory_usage, wall time;
 * - get_memory_usage / list_processes: p50/p95 over a warm connection, targets p50 ≤ 5 ms and ≤ 50 ms (with
 *   `processes`: how many the host has; sleeping children pad it to 200, the figure);
 * - list_processes: through the kept process reader (host-ssh-ps-reader.ts, the default), next to
 *   list_processes_one_shot (a new exec channel per call: the default before it) and list_processes_sftp_walk (file
 *   by file over SFTP: how it runs on a host without sh or awk), in BENCH_ROUNDS (3) interleaved rounds, each
 *   round's p50 and CPU under `rounds` with the load then; `_local` entries are the same action on this machine;
 * - openssh_controlmaster_cat_meminfo: `ssh -S <ControlMaster socket> host cat /proc/meminfo`, same run, and
 *   openssh_controlmaster_process_table: the process table reader's own command through it;
 * - load_average: the 1-minute load when the run started (these machines are shared: read figures with it);
 * - per measured call, CPU milliseconds (less sensitive to that load than wall time): `daemon_cpu_ms` (this
 *   process: the SSH client, decoding, the action) and `host_cpu_ms` (the remote side: the peer sshd's session
 *   processes, its sftp-server and whatever they started, reaped children included).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { SshPool } from "../src/adapters/exec-ssh/pool.ts";
import { PROCESS_TABLE_COMMAND, readProcessTableOverSsh } from "../src/adapters/host-ssh-ps.ts";
import { sshActionContext } from "../src/adapters/ssh-context.ts";
import type { ActionContext } from "../src/core/catalogue/action.ts";
import { findAction } from "../src/core/catalogue/index.ts";
import { realContext } from "../test/helpers/real-context.ts";
import { treeCpuMs } from "./support/fanout-lab.ts";
import { startSshd } from "../test/peers/sshd.ts";

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const stats = (xs: number[]) => ({ n: xs.length, p50_ms: r2(pct(xs, 0.5)), p95_ms: r2(pct(xs, 0.95)), min_ms: r2(Math.min(...xs)) });

let hostRoot = 0;
const cpu = { daemon: 0, host: 0 };

async function time(n: number, f: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 3; i++) await f();
  const xs: number[] = [];
  const h0 = hostRoot ? treeCpuMs([hostRoot]) : 0;
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    xs.push(performance.now() - t);
  }
  const c = process.cpuUsage(c0);
  cpu.daemon = r2((c.user + c.system) / 1000 / n);
  cpu.host = hostRoot ? r2((treeCpuMs([hostRoot]) - h0) / n) : 0;
  return xs;
}

function runner(ctx: ActionContext, name: string): () => Promise<unknown> {
  const action = findAction(name, ctx.family);
  if (!action || action.access !== "read_only") throw new Error(`no read-only ${name}`);
  const params = action.params.parse({});
  return () => action.run(params, ctx);
}

// The list_processes target is for a host with 200 processes: sleeping children pad this one up to that.
const count = (): number => readdirSync("/proc").filter((d) => /^\d+$/.test(d)).length;
const padding = Array.from({ length: Math.max(0, 200 - count()) }, () => spawn("sleep", ["600"], { stdio: "ignore" }));
const out: Record<string, unknown> = { load_average: r2(loadavg()[0]!), processes: count() };
const peer = await startSshd();
hostRoot = peer.pid;
try {
  const pub = readFileSync(join(peer.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  const kh = join(peer.dir, "known_hosts");
  writeFileSync(kh, `[127.0.0.1]:${peer.port} ${pub}\n`);
  const route = { target: { host: "127.0.0.1", port: peer.port } };
  const opts = { known_hosts: [kh], host_keys: "strict" as const, default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 5000 };

  const cold: number[] = [];
  for (let i = 0; i < 5; i++) {
    const pool = new SshPool(opts);
    const t = performance.now();
    const { ctx } = await sshActionContext({ pool, route, name: "loopback", logs_readable: { kind: "all" } });
    await runner(ctx, "GetMemoryUsage")();
    cold.push(performance.now() - t);
    pool.close();
  }
  out.cold_first_call_ms = stats(cold);

  const pool = new SshPool(opts);
  const remote = (await sshActionContext({ pool, route, name: "loopback", logs_readable: { kind: "all" } })).ctx;
  const local = await realContext();
  // The process table read file by file over SFTP (how list_processes ran before the one-command reader): the
  // same probe with its reader switched off, as on a host without sh or awk.
  const sftpOnly = (await sshActionContext({ pool, route, name: "loopback", logs_readable: { kind: "all" } })).ctx;
  (sftpOnly.host as unknown as { noProcessReader: boolean }).noProcessReader = true;
  // The one-shot reader (a new exec channel per call: the default before the kept reader).
  const oneShotBuilt = await sshActionContext({ pool, route, name: "loopback", logs_readable: { kind: "all" } });
  const oneShot = oneShotBuilt.ctx;
  (oneShot.host as unknown as { readProcessTable: () => unknown }).readProcessTable = () => readProcessTableOverSsh(oneShotBuilt.session, "loopback");
  // Interleaved rounds (a shared machine: the variants see the same load); figures per round, then all rounds.
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const variants: [string, ActionContext, string, number][] = [
    ["list_processes_sftp_walk", sftpOnly, "ListProcesses", 20],
    ["list_processes_one_shot", oneShot, "ListProcesses", 20],
    ["list_processes", remote, "ListProcesses", 20],
    ["list_processes_local", local, "ListProcesses", 20],
    ["get_memory_usage", remote, "GetMemoryUsage", 60],
    ["get_memory_usage_local", local, "GetMemoryUsage", 60],
  ];
  const all: Record<string, { xs: number[]; daemon: number[]; host: number[] }> = {};
  const perRound: Record<string, unknown[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [key, ctx, name, n] of variants) {
      const xs = await time(n, runner(ctx, name));
      const a = (all[key] ??= { xs: [], daemon: [], host: [] });
      a.xs.push(...xs);
      a.daemon.push(cpu.daemon);
      a.host.push(cpu.host);
      (perRound[key] ??= []).push({ p50_ms: r2(pct(xs, 0.5)), daemon_cpu_ms: cpu.daemon, host_cpu_ms: key.endsWith("_local") ? undefined : cpu.host, load: r2(loadavg()[0]!) });
    }
  }
  const mean = (xs: number[]): number => r2(xs.reduce((x, y) => x + y, 0) / xs.length);
  for (const [key, a] of Object.entries(all)) {
    out[key] = { ...stats(a.xs), daemon_cpu_ms: mean(a.daemon), ...(key.endsWith("_local") ? {} : { host_cpu_ms: mean(a.host) }), rounds: perRound[key] };
  }
  (oneShot.host as unknown as { close(): void }).close();
  (remote.host as unknown as { close(): void }).close();
  pool.close();

  const ctl = join(peer.dir, "ctl");
  const sshArgs = ["-i", peer.clientKey, "-p", String(peer.port), "-o", `UserKnownHostsFile=${kh}`, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-S", ctl];
  const master = spawn("ssh", [...sshArgs, "-M", "-N", "root@127.0.0.1"], { stdio: "ignore" });
  for (let i = 0; i < 100 && !existsSync(ctl); i++) await new Promise((r) => setTimeout(r, 50));
  const cm = await time(40, () => {
    const r = spawnSync("ssh", [...sshArgs, "root@127.0.0.1", "cat", "/proc/meminfo"]);
    if (r.status !== 0) throw new Error(`ssh -S failed: ${r.stderr.toString()}`);
    return Promise.resolve();
  });
  out.openssh_controlmaster_cat_meminfo = { ...stats(cm), host_cpu_ms: cpu.host };
  // The same bytes the reader prints, through OpenSSH: the listing's command as `ssh -S host <command>`.
  const cps = await time(20, () => {
    const r = spawnSync("ssh", [...sshArgs, "root@127.0.0.1", PROCESS_TABLE_COMMAND], { maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`ssh -S failed: ${r.stderr.toString()}`);
    return Promise.resolve();
  });
  out.openssh_controlmaster_process_table = { ...stats(cps), host_cpu_ms: cpu.host };
  master.kill();
} finally {
  await peer.stop();
  for (const p of padding) p.kill();
}
console.log(JSON.stringify(out));
