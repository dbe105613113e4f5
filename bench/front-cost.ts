/**
 * Per-call cost and memory of the MCP fronts (issue 14). Prints one JSON object:
 * - cpu_us_per_call: CPU time (user + system, from /proc/<pid>/stat) the server process spends per
 *   tools/call get_load, over stdio and over Streamable HTTP (stateless: one POST per call on a kept-alive
 *   connection, as clients' fetch does), and their ratio (target: HTTP ≤ 2× stdio). HTTP is measured for a
 *   2025-era request (`http`: no per-request envelope, served by hostgate's Node-native path) and a 2026-07-28
 *   one (`http_2026`: MCP-Protocol-Version/Mcp-Method/Mcp-Name headers and the `_meta` envelope, served by
 *   the SDK's handler); every answer is checked to be a get_load result, so a fast error cannot pass for a call.
 *   The three are measured in interleaved rounds against two servers running side by side;
 * - rss_mb: resident memory of `hostgate mcp` after 2,000 mixed calls (get_memory_usage, get_disk_usage,
 *   list_processes, get_system_info, list_units, plan_command), executed through the launcher's shebang
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

// CPU per call: stdio vs HTTP, get_load. Both servers run side by side and are measured in interleaved rounds
// (stdio, HTTP 2025-era, HTTP 2026-07-28, then again), so load that comes and goes on a shared machine
// weighs on every figure alike instead of on whichever ran during it.
const getLoad = { name: "get_load", arguments: {} };
const stdio = new StdioFront([HOSTGATE_BIN, "mcp"]);
await stdio.init();
const serve = spawn(HOSTGATE_BIN, ["serve", "--port", "0"], { env: env(), stdio: ["ignore", "ignore", "pipe"] });
const port = await new Promise<number>((resolve) => {
  let err = "";
  serve.stderr.on("data", (c: Buffer) => { err += c.toString(); const m = /listening on http:\/\/[^:]+:(\d+)/.exec(err); if (m) resolve(Number(m[1])); });
});
const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
const legacyBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: getLoad });
const modernBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...getLoad, _meta: envelope } });
const modernHeaders = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_load" };
const kinds = {
  stdio: { pid: stdio.child.pid!, call: () => stdio.call("tools/call", getLoad) },
  http: { pid: serve.pid!, call: () => post(port, legacyBody) },
  http_2026: { pid: serve.pid!, call: () => post(port, modernBody, modernHeaders) },
};
const ROUNDS = 10;
const spent = { stdio: 0, http: 0, http_2026: 0 };
for (const kind of Object.values(kinds)) for (let i = 0; i < 100; i++) await kind.call();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, kind] of Object.entries(kinds) as [keyof typeof kinds, (typeof kinds)[keyof typeof kinds]][]) {
    const start = cpuUs(kind.pid);
    for (let i = 0; i < CALLS / ROUNDS; i++) await kind.call();
    spent[name] += cpuUs(kind.pid) - start;
  }
}
const [stdioUs, httpUs, http2026Us] = [spent.stdio / CALLS, spent.http / CALLS, spent.http_2026 / CALLS];
stdio.stop();
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
