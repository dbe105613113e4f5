/**
 * Issue 24 (r24c) read-only actions through MCP: `tools/call` of each new direct tool through `hostgate mcp` over
 * stdio, as a client sends it (own state and runtime directories; run by bench/run.ts with its scratch config).
 * Prints one JSON object: per tool the client latency p50/p90 in ms over BENCH_N calls (default 50; 3 for
 * list_upgradable_packages, which runs an apt simulation), whether the answers were errors (with the first error's
 * code: on this machine, without PID-1 systemd, read_unit_logs_since_start and a D-Bus timedated are absent), and
 * the load average before and after (a shared machine). r24b's bench/catalogue-reads.ts had not landed when this
 * was written: merge the two when it has. Targets (issue 24): ≤ 2 ms p50 for /proc and /sys reads, ≤ 20 ms where a
 * tool is spawned.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const N = Number(process.env.BENCH_N ?? 50);

const server = createServer((s) => s.destroy());
await new Promise<void>((r) => { server.listen(0, "127.0.0.1", () => { r(); }); });
const port = (server.address() as { port: number }).port;

/** Tool, arguments, how it reads ("files" or the tool it spawns), calls. */
const CASES: [string, Record<string, unknown>, string, number][] = [
  ["get_load", {}, "files (baseline: an existing /proc read, to read the others against this machine's load)", N],
  ["list_routes", {}, "files", N],
  ["get_dns_config", {}, "files", N],
  ["get_journal_disk_usage", {}, "files", N],
  ["read_kernel_log", { limit: 100 }, "files (/dev/kmsg, O_NONBLOCK until EAGAIN; k24)", N],
  ["list_installed_packages", { limit: 200 }, "files", N],
  ["list_package_files", { name: "coreutils" }, "files", N],
  ["list_certificates", {}, "files", N],
  ["get_time_sync_status", {}, "d-bus, else files", N],
  ["check_tcp_connect", { target: "127.0.0.1", port }, "socket", N],
  ["get_firewall_ruleset", {}, "spawns nft", N],
  ["read_unit_logs_since_start", { unit: "ssh" }, "spawns systemctl + journalctl", N],
  ["list_upgradable_packages", {}, "spawns apt-get -s", Math.min(N, 3)],
];

const dir = mkdtempSync(join(tmpdir(), "hg-bench-r24c-"));
const env: Record<string, string> = { ...process.env, HOSTGATE_STATE_DIR: join(dir, "state"), HOSTGATE_RUNTIME_DIR: join(dir, "run") };
delete env.NODE_EXTRA_CA_CERTS;
delete env.HOSTGATE_SOCKET;
const child = spawn(process.execPath, [HOSTGATE_BIN, "mcp"], { env, stdio: ["pipe", "pipe", "ignore"] });
let buf = "";
let next = 1;
const waiting = new Map<number, (m: unknown) => void>();
child.stdout.on("data", (c: Buffer) => {
  buf += c.toString();
  let nl;
  while ((nl = buf.indexOf("\n")) >= 0) {
    const m = JSON.parse(buf.slice(0, nl)) as { id?: number };
    buf = buf.slice(nl + 1);
    if (m.id !== undefined) waiting.get(m.id)?.(m);
  }
});
let exited: Error | null = null;
const failures = new Set<(e: Error) => void>();
child.on("exit", (code, signal) => {
  exited = new Error(`hostgate mcp exited (${code ?? signal}) during the benchmark`);
  for (const f of failures) f(exited);
});
const call = (method: string, params: unknown): Promise<unknown> => {
  const id = next++;
  return new Promise((resolve, reject) => {
    if (exited) { reject(exited); return; }
    failures.add(reject);
    waiting.set(id, (m) => { failures.delete(reject); waiting.delete(id); resolve(m); });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  });
};
const before = loadavg().map(r2);
const tools: Record<string, unknown> = {};
try {
  await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  for (const [name, args, reads, calls] of CASES) {
    const req = { name, arguments: args };
    await call("tools/call", req); // warm-up
    const ms: number[] = [];
    let errors = 0;
    let code: string | null = null;
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      const m = (await call("tools/call", req)) as { result?: { isError?: boolean; structuredContent?: { code?: string } }; error?: { message: string } };
      ms.push(performance.now() - t);
      if (m.error || m.result?.isError) { errors++; code ??= m.result?.structuredContent?.code ?? m.error?.message ?? "error"; }
    }
    tools[name] = { reads, calls, p50_ms: r2(pct(ms, 0.5)), p90_ms: r2(pct(ms, 0.9)), errors, ...(code === null ? {} : { error_code: code }) };
  }
} finally {
  child.stdin.end();
  setTimeout(() => { child.kill("SIGKILL"); }, 3000).unref();
  if (!exited) await new Promise((r) => child.once("exit", r));
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ bench: "catalogue-reads-2", via: `hostgate mcp over stdio (${HOSTGATE_BIN})`, tools, loadavg_before: before, loadavg_after: loadavg().map(r2) }));
