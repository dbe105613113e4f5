import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOSTGATE_BIN } from "../../test/helpers/hostgate.ts";

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
/** utime + stime of a process, in ms (USER_HZ = 100: 10 ms a tick). */
const cpuMs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(")")[1]!.trim().split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};

/**
 * `tools/call list_processes` (default arguments) through `hostgate mcp` over stdio, as a client sends it: the
 * server's CPU time per call (from /proc/<pid>/stat over all `calls`, so the 10 ms tick averages out) and the
 * client-side latency p50/p90. Runs the launcher as a client's entry does (`node bin/hostgate.js mcp`: the launcher
 * sets its V8 flags itself), dist/ when built, else the sources through tsx (`build` says which). Own state and runtime directories; the server is stopped by closing its stdin, else by pid.
 */
export async function mcpListProcesses(calls: number, nodeArgs: string[] = []): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "hg-bench-ps-mcp-"));
  const env: Record<string, string> = { ...process.env, HOSTGATE_STATE_DIR: join(dir, "state"), HOSTGATE_RUNTIME_DIR: join(dir, "run") };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.HOSTGATE_SOCKET;
  // Through node, so `nodeArgs` (e.g. --cpu-prof) can be added; no V8 flag of our own: the launcher sets those.
  const child = spawn(process.execPath, [...nodeArgs, HOSTGATE_BIN, "mcp"], { env, stdio: ["pipe", "pipe", "ignore"] });
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
  try {
    await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const args = { name: "list_processes", arguments: {} };
    for (let i = 0; i < 30; i++) await call("tools/call", args);
    const first = (await call("tools/call", args)) as { result?: { isError?: boolean; structuredContent?: { total: number } } };
    if (!first.result || first.result.isError) throw new Error(`list_processes failed: ${JSON.stringify(first).slice(0, 500)}`);
    const wall: number[] = [];
    const c0 = cpuMs(child.pid!);
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      await call("tools/call", args);
      wall.push(performance.now() - t);
    }
    return {
      build: existsSync(join(HOSTGATE_BIN, "../../dist/hostgate.js")) ? "dist" : "tsx",
      calls,
      processes: first.result.structuredContent?.total,
      server_cpu_ms_per_call: r2((cpuMs(child.pid!) - c0) / calls),
      wall_ms: { p50: r2(pct(wall, 0.5)), p90: r2(pct(wall, 0.9)) },
    };
  } finally {
    // End of stdin ends the server (and lets --cpu-prof write its profile); SIGTERM if it has not within 3 s.
    if (!exited) {
      const gone = new Promise((r) => child.once("exit", r));
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGTERM"), 3000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
