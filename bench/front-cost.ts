/**
 * Per-call cost and memory of the MCP fronts (issue 14). Prints one JSON object:
 * - cpu_us_per_call: CPU time (user + system, from /proc/<pid>/stat) the server process spends per
 *   tools/call get_load, over stdio and over Streamable HTTP (stateless: one POST per call on a kept-alive
 *   connection, as clients' fetch does), and their ratio (target: HTTP ≤ 2× stdio). HTTP is measured for a
 *   2025-era request (`http`: no per-request envelope, served by hostgate's Node-native path) and a 2026-07-28
 *   one (`http_2026`: MCP-Protocol-Version/Mcp-Method/Mcp-Name headers and the `_meta` envelope, served by
 *   the SDK's handler); every answer is checked to be a get_load result, so a fast error cannot pass for a call;
 * - rss_mb: resident memory of `hostgate mcp` after 2,000 mixed calls (get_memory_usage, get_disk_usage,
 *   list_processes, get_system_info, list_units, plan_command), started through the launcher (shebang flags)
 *   and as `node bin/hostgate.js` (target: ≤ 90 MB either way).
 * Every server gets its own state and runtime directories; all are stopped by PID at the end.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const MIXED = Number(process.env.BENCH_MIXED ?? 2000);
const TICK_US = 10_000; // USER_HZ = 100

const env = (): Record<string, string> => {
  const d = mkdtempSync(join(tmpdir(), "hg-bench-front-"));
  const e: Record<string, string> = { ...process.env, HOSTGATE_STATE_DIR: join(d, "state"), HOSTGATE_RUNTIME_DIR: join(d, "run") };
  delete e.NODE_EXTRA_CA_CERTS;
  return e;
};
const cpuUs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(")")[1]!.trim().split(" ");
  return (Number(f[11]) + Number(f[12])) * TICK_US;
};
const rssMb = (pid: number): number => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 102.4) / 10;

class StdioFront {
  child: ChildProcessWithoutNullStreams;
  private buf = "";
  private next = 1;
  private waiting = new Map<number, () => void>();
  constructor(argv: string[]) {
    this.child = spawn(argv[0]!, argv.slice(1), { env: env(), stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.resume();
    this.child.stdout.on("data", (c: Buffer) => {
      this.buf += c.toString();
      let nl;
      while ((nl = this.buf.indexOf("\n")) >= 0) {
        const m = JSON.parse(this.buf.slice(0, nl)) as { id?: number };
        this.buf = this.buf.slice(nl + 1);
        if (m.id !== undefined) this.waiting.get(m.id)?.();
      }
    });
  }
  call(method: string, params: unknown): Promise<void> {
    const id = this.next++;
    return new Promise((r) => { this.waiting.set(id, r); this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`); });
  }
  async init(): Promise<void> {
    await this.call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  }
  stop(): void { this.child.kill("SIGTERM"); }
}

/** One kept-alive connection, as MCP clients (fetch) use. */
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
function post(port: number, body: string, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", agent, headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => { text += c; });
      res.on("end", () => { if (res.statusCode === 200 && text.includes('"result"') && text.includes("load1")) resolve(); else reject(new Error(`not a get_load result: ${res.statusCode} ${text.slice(0, 300)}`)); });
    });
    req.on("error", reject);
    req.end(body);
  });
}

// CPU per call: stdio vs HTTP, get_load.
const getLoad = { name: "get_load", arguments: {} };
const stdio = new StdioFront([HOSTGATE_BIN, "mcp"]);
await stdio.init();
for (let i = 0; i < 100; i++) await stdio.call("tools/call", getLoad);
const c0 = cpuUs(stdio.child.pid!);
for (let i = 0; i < CALLS; i++) await stdio.call("tools/call", getLoad);
const stdioUs = (cpuUs(stdio.child.pid!) - c0) / CALLS;
stdio.stop();

const serve = spawn(HOSTGATE_BIN, ["serve", "--port", "0"], { env: env(), stdio: ["ignore", "ignore", "pipe"] });
const port = await new Promise<number>((resolve) => {
  let err = "";
  serve.stderr.on("data", (c: Buffer) => { err += c.toString(); const m = /listening on http:\/\/[^:]+:(\d+)/.exec(err); if (m) resolve(Number(m[1])); });
});
/** CPU per call of `serve` for one kind of POST, after 100 warm-up calls. */
async function httpCost(body: string, headers: Record<string, string> = {}): Promise<number> {
  for (let i = 0; i < 100; i++) await post(port, body, headers);
  const start = cpuUs(serve.pid!);
  for (let i = 0; i < CALLS; i++) await post(port, body, headers);
  return (cpuUs(serve.pid!) - start) / CALLS;
}
const httpUs = await httpCost(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: getLoad }));
const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
const http2026Us = await httpCost(
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...getLoad, _meta: envelope } }),
  { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_load" },
);
serve.kill("SIGTERM");
agent.destroy();

// RSS after mixed calls, both ways of starting the binary.
const mixed = [
  { name: "get_memory_usage", arguments: {} }, { name: "get_disk_usage", arguments: {} }, { name: "list_processes", arguments: { limit: 20 } },
  { name: "get_system_info", arguments: {} }, { name: "list_units", arguments: { limit: 20 } }, { name: "plan_command", arguments: { command: "ls -la /tmp | grep x" } },
];
const rss: Record<string, { idle: number; after: number }> = {};
for (const [label, argv] of [["launcher", [HOSTGATE_BIN, "mcp"]], ["plain_node", [process.execPath, HOSTGATE_BIN, "mcp"]]] as const) {
  const f = new StdioFront([...argv]);
  await f.init();
  await f.call("tools/list", {});
  const idle = rssMb(f.child.pid!);
  for (let i = 0; i < MIXED; i++) await f.call("tools/call", mixed[i % mixed.length]);
  rss[label] = { idle, after: rssMb(f.child.pid!) };
  f.stop();
}

console.log(JSON.stringify({
  bench: "front-cost",
  calls: CALLS,
  cpu_us_per_call: {
    stdio: Math.round(stdioUs), http: Math.round(httpUs), ratio: Math.round((httpUs / stdioUs) * 100) / 100,
    http_2026: Math.round(http2026Us), ratio_2026: Math.round((http2026Us / stdioUs) * 100) / 100, target_ratio: 2,
  },
  rss_mb: { ...rss, mixed_calls: MIXED, target_mb: 90 },
}));
