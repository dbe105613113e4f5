/**
 * Issue 24's read-only actions through MCP: `tools/call` of each direct tool through `hostgate mcp` over stdio,
 * as a client sends it (bench/support/mcp-stdio-client.ts: own state and runtime directories, dist/ when built).
 * Prints one JSON object: per tool what it reads (`kind`: `proc` /proc, `sys` /sys, `file` other files, `dbus`
 * systemd's D-Bus, `socket` a TCP connect, `spawn` a program it runs), the client-side latency p50/p95 in ms over
 * BENCH_N calls (default 100) after 20 warm-up calls, and the target (issue 24: ≤ 2 ms p50 for /proc and /sys,
 * ≤ 20 ms where a tool is spawned; none given for the others). A tool that answers an error here (no systemd as
 * PID 1 on this machine) reports its error (code: message) instead of figures. BENCH_TOOLS=a,b runs only those. `get_load` (an existing /proc tool) is the
 * baseline round trip. The load average before and after: a shared machine's figures mean little above ~3.
 * list_upgradable_packages is measured warm (its answer cached until the package index changes); its first call,
 * which runs apt-get -s, is reported as `first_call_ms` with the calls it took (each waits at most 8 s).
 */
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { pct, r2, startMcpStdio, type RpcAnswer } from "./support/mcp-stdio-client.ts";

type Kind = "proc" | "sys" | "file" | "dbus" | "socket" | "spawn";
const TARGET_MS: Record<Kind, number | null> = { proc: 2, sys: 2, spawn: 20, file: null, dbus: null, socket: null };

const server = createServer((s) => s.destroy());
await new Promise<void>((r) => { server.listen(0, "127.0.0.1", () => { r(); }); });
const port = (server.address() as { port: number }).port;

/** Tool, arguments, what it reads (what dominates when it reads several kinds). */
const TOOLS: [string, Record<string, unknown>, Kind][] = [
  ["get_load", {}, "proc"],
  ["list_users", {}, "file"],
  ["list_groups", {}, "file"],
  ["list_login_sessions", {}, "file"],
  ["list_recent_logins", {}, "file"],
  ["list_sudo_rules", {}, "file"],
  ["list_authorized_keys", {}, "file"],
  ["list_timers", {}, "dbus"],
  ["list_cron_jobs", {}, "file"],
  ["list_block_devices", {}, "sys"],
  ["list_mounts", {}, "proc"],
  ["get_inode_usage", {}, "proc"],
  ["list_swap", {}, "proc"],
  ["find_large_files", { path: "/etc" }, "file"],
  ["get_sysctl", { key: "vm.swappiness" }, "proc"],
  ["list_kernel_modules", {}, "proc"],
  ["get_reboot_required", {}, "file"],
  ["get_boot_timing", {}, "dbus"],
  ["list_routes", {}, "proc"],
  ["get_dns_config", {}, "file"],
  ["get_journal_disk_usage", {}, "file"],
  ["read_kernel_log", { limit: 100 }, "file"], // /dev/kmsg, O_NONBLOCK until EAGAIN
  ["list_installed_packages", { limit: 200 }, "file"],
  ["list_package_files", { name: "coreutils" }, "file"],
  ["list_certificates", {}, "file"],
  ["get_time_sync_status", {}, "dbus"],
  ["check_tcp_connect", { target: "127.0.0.1", port }, "socket"],
  ["get_firewall_ruleset", {}, "spawn"],
  ["read_unit_logs_since_start", { unit: "ssh" }, "spawn"],
  ["list_upgradable_packages", {}, "spawn"],
];

/** The stable error code of an error answer (in the JSON text: mcp/result.ts errorResult), else a short reason. */
function errorOf(m: RpcAnswer): string {
  try {
    const body = JSON.parse(m.result?.content?.[0]?.text ?? "") as { error?: { code?: string; message?: string } };
    return `${body.error?.code ?? "error"}: ${(body.error?.message ?? "").slice(0, 120)}`;
  } catch {
    return m.error?.message ?? "error";
  }
}

const n = Number(process.env.BENCH_N ?? 100);
const only = process.env.BENCH_TOOLS?.split(",");
const before = loadavg().map(r2);
const c = await startMcpStdio();
const tools: Record<string, unknown> = {};
try {
  for (const [name, args, kind] of TOOLS) {
    if (only && !only.includes(name)) continue;
    const req = { name, arguments: args };
    const t0 = performance.now();
    let first = await c.call("tools/call", req);
    let tries = 1;
    // A first run beyond its wait budget answers `timeout` and goes on; the next call joins it.
    while (first.result?.isError && errorOf(first).startsWith("timeout:") && tries < 30) {
      first = await c.call("tools/call", req);
      tries++;
    }
    const firstMs = r2(performance.now() - t0);
    if (!first.result || first.result.isError) {
      tools[name] = { kind, error: errorOf(first), first_call_ms: firstMs };
      continue;
    }
    for (let i = 0; i < 20; i++) await c.call("tools/call", req);
    const ms: number[] = [];
    let errors = 0;
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const m = await c.call("tools/call", req);
      ms.push(performance.now() - t);
      if (m.error || m.result?.isError) errors++;
    }
    const target = TARGET_MS[kind];
    tools[name] = {
      kind, p50_ms: r2(pct(ms, 0.5)), p95_ms: r2(pct(ms, 0.95)), target_p50_ms: target, within_target: target === null ? null : pct(ms, 0.5) <= target,
      errors, ...(name === "list_upgradable_packages" ? { first_call_ms: firstMs, first_call_tries: tries } : {}),
    };
  }
} finally {
  await c.close();
  server.close();
}
console.log(JSON.stringify({ bench: "catalogue-reads", via: "hostgate mcp over stdio", build: c.build, calls_per_tool: n, tools, loadavg_before: before, loadavg_after: loadavg().map(r2) }));
