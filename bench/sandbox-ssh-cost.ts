/**
 * The sandbox's cost per command on an SSH host (issue 19; target ≤ 10 ms added to the warm exec p50): run as
 * root, `npx tsx bench/sandbox-ssh-cost.ts [rounds] [--ideas]`. One real sshd in a network namespace
 * (test/peers/netns-sshd.ts, with sftp), a warm connection of the SSH executor, root login. The same `sh -c true`
 * plain and confined (network none) by both SSH mechanisms, interleaved round by round: `bwrap` (the chain
 * timeout → setpriv → bwrap, the seccomp filter fed through a `printf |` pipe: core/sandbox; what a daemon
 * without the helper, or a host of another architecture, uses) and `hostgate-confine` (the helper compiled here
 * from native/confine-helper.c, sent over SFTP into the login's cache by the probe: app/sandbox.ts). `--ideas` adds variants
 * measured for the record only (not shipped): the chain without `timeout`, the filter read from a file instead
 * of the `printf |` pipeline (whose two sides are two forks of the shell), and systemd-run where the host has it
 * (this lab's host: no PID-1 systemd, so reported as unavailable).
 * CPU per command is the host side's: user + system of the session processes sshd reaped, from the `cutime` and
 * `cstime` of every process under the sshd listener (/proc/<pid>/stat, ticks of 10 ms), so the executor's own
 * CPU (ssh2's crypto in this process) is not in it. Prints ONE JSON object: per variant wall p50/p95 and CPU per
 * command, and each one's added p50 and CPU over plain, with the load average.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { buildConfineHelper } from "../src/adapters/confine-helper.ts";
import { SshExecutor } from "../src/adapters/exec-ssh/ssh-executor.ts";
import { SftpUploader } from "../src/adapters/sftp-upload.ts";
import { Sandboxes } from "../src/app/sandbox.ts";
import { shellJoin } from "../src/core/inventory/target.ts";
import { chooseSandbox, confine, type HostSandbox } from "../src/core/sandbox/confine.ts";
import { sandboxFilter } from "../src/core/sandbox/seccomp.ts";
import { startNetnsLab } from "../test/peers/netns-sshd.ts";

const rounds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 100);
const ideas = process.argv.includes("--ideas");
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;

/** CPU (ms) of the reaped children of every process under `root` (root included): the host side's cost. */
function reapedCpuMs(root: number): number {
  const parent = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const f = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]!.split(" ");
      parent.set(Number(name), Number(f[1]));
      cpu.set(Number(name), (Number(f[13]) + Number(f[14])) * 10);
    } catch { /* gone meanwhile */ }
  }
  let sum = 0;
  for (const [pid, ms] of cpu) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) { sum += ms; break; }
    }
  }
  return sum;
}

const lab = await startNetnsLab(1, { sftp: true });
const dir = mkdtempSync(join(tmpdir(), "hg-bench-ssh-sandbox-"));
try {
  const h = lab.hosts[0]!;
  const ex = new SshExecutor({ known_hosts: [lab.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [lab.clientKey], connect_timeout_ms: 5000 });
  const target = { host: h.ip, port: 22 };
  const sb = await new Sandboxes().forHost({ key: "bench-ssh", executor: ex, target });
  const bytes = readFileSync(buildConfineHelper(join(dir, "hostgate-confine")));
  const remote_helper = { bytes, sha256: createHash("sha256").update(bytes).digest("hex"), arch: process.arch === "arm64" ? "aarch64" : "x86_64", uploader: new SftpUploader(ex.pool) };
  const hsb = await new Sandboxes({ remote_helper }).forHost({ key: "bench-ssh", executor: ex, target });
  if (sb.mechanism !== "bwrap" || hsb.mechanism !== "hostgate-confine") throw new Error(`mechanisms: ${sb.summary} / ${hsb.summary}`);
  const opts = { network: "none", timeout_sec: 10, run_id: "bench" } as const;
  const shipped = confine(["sh", "-c", "true"], sb, opts).command;
  // `… as nobody`: the same mechanisms without a uid of their own per run (RUN_UID_POOL; the pool made to clash),
  // what they cost before it.
  const asNobody = (x: HostSandbox): HostSandbox => chooseSandbox({ ...x.facts, uid_pool_clash: ["bench: as before per-run uids"] });
  const commands: Record<string, string> = {
    plain: `exec ${shellJoin(["sh", "-c", "true"])}`, bwrap: shipped, "hostgate-confine": confine(["sh", "-c", "true"], hsb, opts).command,
    "bwrap as nobody": confine(["sh", "-c", "true"], asNobody(sb), opts).command, "hostgate-confine as nobody": confine(["sh", "-c", "true"], asNobody(hsb), opts).command,
  };
  if (ideas) {
    commands["idea: bwrap without timeout"] = shipped.replace(/\S*timeout --foreground -s KILL \d+ /, "");
    // The filter from a file (what a per-host cache of it would allow): `exec … 3<FILE`, no pipeline, no fork.
    const file = join(dir, "filter.bpf");
    writeFileSync(file, sandboxFilter("x86_64", { sockets: "local" }), { mode: 0o600 });
    const piped = /printf '[^']*' \| (.*) 3<&0 <\/dev\/null( 9>&-)?$/.exec(shipped);
    if (piped) commands["idea: bwrap with the filter from a file (no printf pipeline)"] = shipped.replace(piped[0], `${piped[2] ? "" : "exec "}${piped[1]} 3<${file} </dev/null${piped[2] ?? ""}`);
  }
  const wall: Record<string, number[]> = {};
  const cpu: Record<string, number> = {};
  for (const name of Object.keys(commands)) { wall[name] = []; cpu[name] = 0; }
  for (let i = 0; i < rounds + 10; i++) {
    for (const [name, command] of Object.entries(commands)) {
      const c0 = reapedCpuMs(h.pid);
      const t = performance.now();
      const r = await ex.exec({ target, command, timeout_ms: 10_000, max_output_bytes: 4096 });
      const ms = performance.now() - t;
      if (r.exit_code !== 0) throw new Error(`${name} failed: ${r.stderr}`);
      if (i < 10) continue;
      wall[name]!.push(ms);
      cpu[name]! += reapedCpuMs(h.pid) - c0;
    }
  }
  ex.close();
  const loadavg = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number);
  const variants = Object.fromEntries(Object.keys(commands).map((name) => [name, {
    p50_ms: r2(pct(wall[name]!, 0.5)), p95_ms: r2(pct(wall[name]!, 0.95)), cpu_ms_per_command: r2(cpu[name]! / rounds),
    added_p50_ms: r2(pct(wall[name]!, 0.5) - pct(wall.plain!, 0.5)), added_cpu_ms_per_command: r2((cpu[name]! - cpu.plain!) / rounds),
  }]));
  const systemdRun = sb.facts.systemd && sb.facts.programs.systemd_run ? "available (not measured here)" : "unavailable on this host (PID 1 is not systemd)";
  console.log(JSON.stringify({ rounds, loadavg, identity: sb.identity, helper: hsb.summary, systemd_run: systemdRun, variants, target_added_p50_ms: 10 }));
} finally {
  rmSync(dir, { recursive: true, force: true });
  await lab.stop();
}
