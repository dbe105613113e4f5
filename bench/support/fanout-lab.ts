import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { DaemonDeps } from "../../src/app/deps.ts";
import type { DaemonService } from "../../src/app/daemon-service.ts";
import type { NetnsLab } from "../../test/peers/netns-sshd.ts";

/**
 * The daemon of the fan-out benchmarks (bench/remote-fanout.ts, bench/fanout-profile.ts) over a lab of sshd hosts:
 * composed in this process (`composeDaemon`, embedded, the client the MCP front uses) with a static inventory of
 * the lab's hosts (tag `lab`), the lab's known_hosts and client key, and a Cedar policy that lets the caller read
 * them and run low-risk commands. `srcRoot` picks the source tree: this checkout's `src/` by default, or another
 * copy of it (an older commit, unpacked with `git archive`) so old and new code run interleaved on the same lab.
 */
export interface FanoutDaemon {
  /** The daemon's agent socket, in process (`agent.call(method, params)`). */
  agent: ReturnType<DaemonService["agent"]>;
  /** The composed daemon's deps (audit store, hosts feature), typed as this checkout's (an older tree's are assumed alike). */
  deps: DaemonDeps;
  close(): Promise<void>;
}

/**
 * Composes a daemon from `srcRoot` (default: this checkout's src/) over `lab`; `work` holds its policy and state.
 * With `relay`, the inventory reaches each host through the relay's port for it (same names, host keys pinned
 * for those ports): the same hosts behind a longer round trip.
 */
export async function fanoutDaemon(lab: NetnsLab, work: string, opts: { srcRoot?: string; fanout_concurrency?: number; relay?: DelayRelay } = {}): Promise<FanoutDaemon> {
  const src = resolve(opts.srcRoot ?? new URL("../../src", import.meta.url).pathname);
  const { ConfigSchema } = await import(pathToFileURL(join(src, "config/schema.ts")).href) as typeof import("../../src/config/schema.ts");
  const { composeDaemon } = await import(pathToFileURL(join(src, "daemon/compose.ts")).href) as typeof import("../../src/daemon/compose.ts");
  const policies = join(work, "policies");
  mkdirSync(policies, { recursive: true });
  writeFileSync(join(policies, "bench.cedar"), [
    `permit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };`,
    `permit (principal, action == Hostgate::Action::"exec", resource) when { resource.tags.contains("lab") && context.risk_rank == 0 };`, "",
  ].join("\n"));
  const before = process.env.HOSTGATE_STATE_DIR;
  process.env.HOSTGATE_STATE_DIR = mkdtempSync(join(work, "state-"));
  const config = ConfigSchema.parse({
    backend: { type: "mock" },
    policy: { dir: policies },
    exec: {
      enabled: true, known_hosts: [opts.relay?.knownHosts ?? lab.knownHosts], identity_files: [lab.clientKey], use_agent: false, user: "root", host_keys: "strict", connect_timeout_ms: 10_000,
      ...(opts.fanout_concurrency !== undefined ? { fanout_concurrency: opts.fanout_concurrency } : {}),
    },
    inventory: { providers: [{ kind: "static", name: "lab", cache_ttl: 0, tags: ["lab"], hosts: lab.hosts.map((h, i) => (opts.relay ? { name: h.name, address: "127.0.0.1", port: opts.relay.ports[i]! } : { name: h.name, address: h.ip })) }] },
  });
  try {
    const d = await composeDaemon(config, { mode: "embedded", announce: () => undefined });
    return { agent: d.service.agent("bench"), deps: d.service.deps, close: () => d.close() };
  } finally {
    if (before === undefined) delete process.env.HOSTGATE_STATE_DIR;
    else process.env.HOSTGATE_STATE_DIR = before;
  }
}

/** CPU ms used so far by the processes under each of `roots` (utime + stime + reaped children's), from /proc/[pid]/stat. */
export function treeCpuMs(roots: readonly number[]): number {
  const rows = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      const f = readFileSync(`/proc/${d}/stat`, "utf8");
      const x = f.slice(f.lastIndexOf(")") + 2).split(" ");
      return [{ pid: Number(d), ppid: Number(x[1]), ticks: Number(x[11]) + Number(x[12]) + Number(x[13]) + Number(x[14]) }];
    } catch {
      return [];
    }
  });
  const parent = new Map(rows.map((r) => [r.pid, r.ppid]));
  const set = new Set(roots);
  const under = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) if (set.has(p)) return true;
    return false;
  };
  return rows.filter((r) => under(r.pid)).reduce((a, r) => a + r.ticks, 0) * 10;
}

/** The machine's busy and total jiffies so far (/proc/stat, all cores). */
export function machineJiffies(): { busy: number; all: number } {
  const c = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const all = c.reduce((a, b) => a + b, 0);
  return { busy: all - c[3]! - c[4]!, all };
}

/** A running bench/support/delay-relay.ts in front of every host of a lab. */
export interface DelayRelay {
  rtt_ms: number;
  pid: number;
  /** The relay's port for each lab host, in the lab's order (on 127.0.0.1). */
  ports: number[];
  /** known_hosts pinning each host's key for `[127.0.0.1]:<its port>`. */
  knownHosts: string;
  /** How late the relay's held chunks left so far (timer slack on top of `rtt_ms`). */
  stats(): Promise<{ chunks: number; mean_late_ms: number; max_late_ms: number }>;
  stop(): void;
}

/**
 * Starts a delay relay (its own process, so its CPU is not the daemon's) adding `rttMs` to every round trip to
 * each host of `lab`; `dir` receives its known_hosts. Rejects when it does not come up within 20 s.
 */
export async function startDelayRelay(lab: NetnsLab, rttMs: number, dir: string): Promise<DelayRelay> {
  const script = new URL("./delay-relay.ts", import.meta.url).pathname;
  const child = spawn(process.execPath, [...process.execArgv, script, JSON.stringify({ rtt_ms: rttMs, targets: lab.hosts.map((h) => ({ host: h.ip, port: h.port })) })], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on("line", (l) => { waiting.shift()?.(l); });
  const next = (): Promise<string> => new Promise((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`delay relay (rtt ${rttMs} ms) did not answer within 20 s`)); }, 20_000);
    waiting.push((l) => { clearTimeout(timer); resolve(l); });
  });
  const { ports } = JSON.parse(await next()) as { ports: number[] };
  const knownHosts = join(dir, `known_hosts_rtt${rttMs}`);
  writeFileSync(knownHosts, lab.hosts.map((h, i) => `[127.0.0.1]:${ports[i]!} ${h.hostKeyPub}\n`).join(""));
  return {
    rtt_ms: rttMs, pid: child.pid!, ports, knownHosts,
    stats: async () => { child.stdin.write("stats\n"); return JSON.parse(await next()) as { chunks: number; mean_late_ms: number; max_late_ms: number }; },
    stop: () => { child.stdin.end(); },
  };
}
