/**
 * Issue 24's read-only actions through MCP: `tools/call` of each new direct tool through `hostgate mcp` over
 * stdio (own state and runtime directories, dist/ when built), as a client sends it. Prints one JSON object: per
 * tool the client-side latency p50/p90 in ms, what the action reads (`proc_sys`: /proc and /sys only; `files`:
 * other files; `dbus`: systemd's D-Bus) and its target (issue 24: ≤ 2 ms for /proc and /sys, ≤ 20 ms where a tool
 * is spawned; none of these spawns one). A tool that answers an error here (no systemd on this host) reports it
 * instead of figures. `get_load` (an existing /proc tool) is the baseline round trip. BENCH_N calls per tool (100) after 20 warm-up calls; the load average before and after (a
 * shared machine).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";

type Kind = "proc_sys" | "files" | "dbus";
const TOOLS: { name: string; args: Record<string, unknown>; reads: Kind }[] = [
  // baseline: an existing /proc tool, so a loaded machine's round-trip cost can be told apart from the actions'
  { name: "get_load", args: {}, reads: "proc_sys" },
  { name: "list_users", args: {}, reads: "files" },
  { name: "list_groups", args: {}, reads: "files" },
  { name: "list_login_sessions", args: {}, reads: "files" },
  { name: "list_recent_logins", args: {}, reads: "files" },
  { name: "list_sudo_rules", args: {}, reads: "files" },
  { name: "list_authorized_keys", args: {}, reads: "files" },
  { name: "list_timers", args: {}, reads: "dbus" },
  { name: "list_cron_jobs", args: {}, reads: "files" },
  { name: "list_block_devices", args: {}, reads: "proc_sys" },
  { name: "list_mounts", args: {}, reads: "proc_sys" },
  { name: "get_inode_usage", args: {}, reads: "proc_sys" },
  { name: "list_swap", args: {}, reads: "proc_sys" },
  { name: "find_large_files", args: { path: "/etc" }, reads: "files" },
  { name: "get_sysctl", args: { key: "vm.swappiness" }, reads: "proc_sys" },
  { name: "list_kernel_modules", args: {}, reads: "proc_sys" },
  { name: "get_reboot_required", args: {}, reads: "proc_sys" },
  { name: "get_boot_timing", args: {}, reads: "dbus" },
];

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const load = (): number[] => loadavg().map((x) => Math.round(x * 100) / 100);

const n = Number(process.env.BENCH_N ?? 100);
const dir = mkdtempSync(join(tmpdir(), "hg-bench-cat-"));
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
const call = (method: string, params: unknown): Promise<{ result?: { isError?: boolean; content?: { text: string }[] }; error?: unknown }> => {
  const id = next++;
  return new Promise((resolve) => {
    waiting.set(id, (m) => { waiting.delete(id); resolve(m as never); });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  });
};

const before = load();
const results: Record<string, unknown> = {};
try {
  await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  for (const t of TOOLS) {
    const params = { name: t.name, arguments: t.args };
    const first = await call("tools/call", params);
    if (!first.result || first.result.isError) {
      results[t.name] = { reads: t.reads, error: JSON.stringify(first.result?.content?.[0]?.text ?? first.error ?? first).slice(0, 200) };
      continue;
    }
    for (let i = 0; i < 20; i++) await call("tools/call", params);
    const wall: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = performance.now();
      await call("tools/call", params);
      wall.push(performance.now() - s);
    }
    const target = t.reads === "proc_sys" ? 2 : 20;
    results[t.name] = { reads: t.reads, p50_ms: r2(pct(wall, 0.5)), p90_ms: r2(pct(wall, 0.9)), target_p50_ms: target, within_target: pct(wall, 0.5) <= target };
  }
} finally {
  child.stdin.end();
  const timer = setTimeout(() => child.kill("SIGTERM"), 3000);
  await new Promise((r) => child.once("exit", r));
  clearTimeout(timer);
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify({ bench: "catalogue-reads", build: existsSync(join(HOSTGATE_BIN, "../../dist/hostgate.js")) ? "dist" : "tsx", calls_per_tool: n, tools: results, loadavg_before: before, loadavg_after: load() }));
