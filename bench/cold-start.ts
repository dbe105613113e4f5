/**
 * Cold start of the stdio front (issue 14). Prints one JSON object: spawn → answer to tools/list (after
 * initialize), median/p90/min over N runs, for `hostgate mcp` executed through its launcher's shebang,
 * the same started as `node bin/hostgate.js`, and a bare Node JSON-RPC server (no library: the floor any Node
 * server pays), interleaved in one run with NODE_EXTRA_CA_CERTS unset (it adds 50–80 ms to every Node start
 * on this machine). Each hostgate run gets fresh state and runtime directories (a first start, no daemon).
 * Target: hostgate median ≤ 200 ms.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";
import { timeToToolsList } from "./support/time-to-tools-list.ts";

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);
const work = mkdtempSync(join(tmpdir(), "hg-bench-cold-"));
const bare = join(work, "bare.mjs");
writeFileSync(bare, `
let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => {
  buf += c;
  let nl;
  while ((nl = buf.indexOf("\\n")) >= 0) {
    const m = JSON.parse(buf.slice(0, nl)); buf = buf.slice(nl + 1);
    if (m.id === undefined) continue;
    const result = m.method === "initialize" ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bare", version: "1" } }
      : m.method === "tools/list" ? { tools: [{ name: "echo", inputSchema: { type: "object" } }] } : {};
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result }) + "\\n");
  }
});
`);

const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;

const once = (cmd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<number> => timeToToolsList(cmd, args, { ...env, ...extraEnv });

const fresh = (): Record<string, string> => {
  const d = mkdtempSync(join(work, "run-"));
  return { HOSTGATE_STATE_DIR: join(d, "state"), HOSTGATE_RUNTIME_DIR: join(d, "run") };
};
const kinds = {
  hostgate_launcher: () => once(HOSTGATE_BIN, ["mcp"], fresh()),
  hostgate_plain_node: () => once(process.execPath, [HOSTGATE_BIN, "mcp"], fresh()),
  bare_node_jsonrpc: () => once(process.execPath, [bare]),
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
for (const run of Object.values(kinds)) await run(); // warm the page cache
for (let i = 0; i < RUNS; i++) for (const [k, run] of Object.entries(kinds)) times[k]!.push(await run());
rmSync(work, { recursive: true, force: true });

const stat = (xs: number[]): { median: number; p90: number; min: number } => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: Math.round(s[Math.floor(s.length / 2)]!), p90: Math.round(s[Math.min(s.length - 1, Math.floor(s.length * 0.9))]!), min: Math.round(s[0]!) };
};
console.log(JSON.stringify({
  bench: "cold-start",
  runs: RUNS,
  ms: Object.fromEntries(Object.entries(times).map(([k, v]) => [k, stat(v)])),
  target_median_ms: 200,
}));
