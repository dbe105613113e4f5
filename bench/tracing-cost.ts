/**
 * What OpenTelemetry tracing costs the stdio front (issue 25). Prints one JSON object with, per variant:
 * - cold_start_ms: spawn → tools/list answer (after initialize), median/p90/min over BENCH_TRACE_COLD runs (default 11),
 *   and cold_start_cpu_ms: the CPU time (user + system, /proc/<pid>/stat) the process had used by then, which a
 *   loaded machine disturbs less than wall time;
 * - call_ms: wall time of one tools/call get_load in a warm session (embedded daemon), median/p90 over
 *   BENCH_TRACE_CALLS sequential calls (default 300) per session, each answer checked to be a get_load result, and
 *   cpu_us_per_call: the front's CPU time over a session's calls divided by their number;
 * - rss_mb: the front's resident memory after a session's calls (/proc/<pid>/status VmRSS).
 * Sessions run in BENCH_TRACE_ROUNDS interleaved rounds (default 3); the last two are median/p90/min over rounds.
 * Variants, measured interleaved: `off` (this build, no OTEL_* variable: no OpenTelemetry module is loaded), `on`
 * (this build, OTEL_EXPORTER_OTLP_ENDPOINT at a loopback receiver here that answers 200 and counts spans), and
 * `before` when BENCH_BEFORE_BIN names another build's bin/hostgate.js (e.g. the commit before tracing, built in
 * a scratch copy). Every server gets fresh state and runtime directories and is killed by PID.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";

const COLD = Number(process.env.BENCH_TRACE_COLD ?? 11);
const CALLS = Number(process.env.BENCH_TRACE_CALLS ?? 300);
const ROUNDS = Number(process.env.BENCH_TRACE_ROUNDS ?? 3);
const work = mkdtempSync(join(tmpdir(), "hg-bench-trace-"));

let spans = 0;
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => { body += c.toString(); });
  req.on("end", () => { spans += (body.match(/"spanId"/g) ?? []).length; res.writeHead(200, { "content-type": "application/json" }).end("{}"); });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

// No NODE_EXTRA_CA_CERTS (it adds 50–80 ms to every Node start here) and no OTEL_* variable of the caller.
const base: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_EXTRA_CA_CERTS" && !k.startsWith("OTEL_")));

const variants: Record<string, { bin: string; env: Record<string, string> }> = {
  off: { bin: HOSTGATE_BIN, env: {} },
  on: { bin: HOSTGATE_BIN, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } },
  ...(process.env.BENCH_BEFORE_BIN ? { before: { bin: process.env.BENCH_BEFORE_BIN, env: {} } } : {}),
};
const fresh = (): Record<string, string> => {
  const d = mkdtempSync(join(work, "run-"));
  return { HOSTGATE_STATE_DIR: join(d, "state"), HOSTGATE_RUNTIME_DIR: join(d, "run") };
};

const TICK_MS = 10; // USER_HZ = 100
/** CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat (fields 14 and 15). */
const cpuMs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
};

/** Spawn → tools/list answer: wall ms and the CPU ms the server had used by then; the server is then killed. */
function coldStart(bin: string, env: Record<string, string>): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, "mcp"], { stdio: ["pipe", "pipe", "ignore"], env: { ...base, ...fresh(), ...env } });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (!out.includes('"id":2')) return;
      const wall = performance.now() - started;
      const cpu = cpuMs(child.pid!);
      child.kill("SIGKILL");
      resolve({ wall, cpu });
    });
    child.on("error", reject);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
  });
}

/** One warm session: initialize, CALLS sequential get_load calls; per-call wall ms and the final RSS. */
function session(bin: string, env: Record<string, string>): Promise<{ ms: number[]; rss_mb: number; cpu_us_per_call: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "mcp"], { stdio: ["pipe", "pipe", "ignore"], env: { ...base, ...fresh(), ...env } });
    const ms: number[] = [];
    let buf = "";
    let id = 1;
    let sent = 0;
    let cpu0 = 0;
    const send = (m: object): void => { child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`); };
    const next = (): void => { sent = performance.now(); send({ id: ++id, method: "tools/call", params: { name: "get_load", arguments: {} } }); };
    child.stdout.on("data", (c: Buffer) => {
      buf += c.toString();
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const m = JSON.parse(buf.slice(0, nl)) as { id?: number; result?: { structuredContent?: Record<string, unknown>; isError?: boolean } };
        buf = buf.slice(nl + 1);
        if (m.id === 1) { send({ method: "notifications/initialized" }); next(); continue; }
        if (m.id !== id) continue;
        if (m.result?.isError || m.result?.structuredContent?.load1 === undefined) { child.kill("SIGKILL"); reject(new Error(`not a get_load result: ${JSON.stringify(m).slice(0, 300)}`)); return; }
        if (id > 2) ms.push(performance.now() - sent); // the first call starts the embedded daemon
        else cpu0 = cpuMs(child.pid!);
        if (ms.length < CALLS) { next(); continue; }
        const cpu = cpuMs(child.pid!) - cpu0;
        const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
        child.kill("SIGKILL");
        resolve({ ms, rss_mb: Math.round(rss * 10) / 10, cpu_us_per_call: Math.round((cpu * 1000) / CALLS) });
      }
    });
    child.on("error", reject);
    send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } });
  });
}

const stat = (xs: number[], digits = 0): { median: number; p90: number; min: number } => {
  const s = [...xs].sort((a, b) => a - b);
  const r = (x: number): number => Math.round(x * 10 ** digits) / 10 ** digits;
  return { median: r(s[Math.floor(s.length / 2)]!), p90: r(s[Math.min(s.length - 1, Math.floor(s.length * 0.9))]!), min: r(s[0]!) };
};

const cold: Record<string, { wall: number; cpu: number }[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (const v of Object.values(variants)) await coldStart(v.bin, v.env); // warm the page cache
for (let i = 0; i < COLD; i++) {
  for (const [k, v] of Object.entries(variants)) cold[k]!.push(await coldStart(v.bin, v.env));
}
// Warm sessions in interleaved rounds (a loaded machine drifts): per-call times pooled, CPU per call and RSS per round.
const sessions: Record<string, { ms: number[]; cpu: number[]; rss: number[] }> = Object.fromEntries(Object.keys(variants).map((k) => [k, { ms: [], cpu: [], rss: [] }]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [k, v] of Object.entries(variants)) {
    const s = await session(v.bin, v.env);
    sessions[k]!.ms.push(...s.ms);
    sessions[k]!.cpu.push(s.cpu_us_per_call);
    sessions[k]!.rss.push(s.rss_mb);
  }
}
const out: Record<string, unknown> = {};
for (const k of Object.keys(variants)) {
  const s = sessions[k]!;
  out[k] = { cold_start_ms: stat(cold[k]!.map((c) => c.wall)), cold_start_cpu_ms: stat(cold[k]!.map((c) => c.cpu)), call_ms: stat(s.ms, 2), cpu_us_per_call: stat(s.cpu), rss_mb: stat(s.rss, 1) };
}
await new Promise((r) => setTimeout(r, 1500)); // the `on` front's last batch
receiver.close();
rmSync(work, { recursive: true, force: true });
console.log(JSON.stringify({ bench: "tracing-cost", cold_runs: COLD, calls: CALLS, variants: out, spans_received_when_on: spans }));
