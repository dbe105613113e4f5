import { spawn } from "node:child_process";
import { readFileSync, existsSync, mkdtempSync } from "node:fs";
import { HOSTGATE_BIN } from "../test/helpers/hostgate.ts";
const d = mkdtempSync("/tmp/prof/m-");
const env = { ...process.env, HOSTGATE_STATE_DIR: d + "/s", HOSTGATE_RUNTIME_DIR: d + "/r", NODE_OPTIONS: "--import=/tmp/prof/memdump.mjs" } as Record<string, string>; delete env.NODE_EXTRA_CA_CERTS;
function front(argv: string[]) {
  const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ["pipe", "pipe", "pipe"] });
  child.stderr.resume(); let buf = ""; let next = 1; const waiting = new Map<number, () => void>();
  child.stdout.on("data", (c: Buffer) => { buf += c; let nl; while ((nl = buf.indexOf("\n")) >= 0) { const m = JSON.parse(buf.slice(0, nl)); buf = buf.slice(nl + 1); if (m.id !== undefined) waiting.get(m.id)?.(); } });
  const call = (method: string, params: unknown) => new Promise<void>((r) => { const id = next++; waiting.set(id, r); child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n"); });
  return { child, call };
}
const mixed = [
  { name: "get_memory_usage", arguments: {} }, { name: "get_disk_usage", arguments: {} }, { name: "list_processes", arguments: { limit: 20 } },
  { name: "get_system_info", arguments: {} }, { name: "list_units", arguments: { limit: 20 } }, { name: "plan_command", arguments: { command: "ls -la /tmp | grep x" } },
];
const argv = process.argv[2] === "plain" ? [process.execPath, HOSTGATE_BIN, "mcp"] : [HOSTGATE_BIN, "mcp"];
const f = front(argv);
await f.call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "b", version: "1" } });
await f.call("tools/list", {});
await new Promise((r) => setTimeout(r, 1500));
const dump = async (label: string) => { f.child.kill("SIGUSR2"); const p = `/tmp/prof/mem-${f.child.pid}.json`; for (let i = 0; i < 50 && !existsSync(p); i++) await new Promise((r) => setTimeout(r, 50)); await new Promise((r) => setTimeout(r, 100)); console.log(label, readFileSync(p, "utf8").replace(/\s+/g, " ")); };
await dump("idle");
for (let i = 0; i < Number(process.env.N ?? 2000); i++) await f.call("tools/call", mixed[i % 6]);
await dump("after");
f.child.kill();
