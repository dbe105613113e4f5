import { spawn } from "node:child_process";

/**
 * Spawns `cmd args` as an MCP stdio server, writes initialize, initialized and tools/list at once (raw JSON
 * lines: no client library on the measured path) and resolves with the milliseconds from spawn to the
 * tools/list answer; the server is then killed. Rejects when it cannot be spawned.
 */
export function timeToToolsList(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "ignore"], env });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes('"id":2')) {
        const ms = performance.now() - started;
        child.kill("SIGKILL");
        resolve(ms);
      }
    });
    child.on("error", reject);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
  });
}
