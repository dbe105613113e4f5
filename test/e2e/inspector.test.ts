import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";

/** Runs the headless MCP Inspector CLI (@modelcontextprotocol/inspector@1.0.3), a client nobody here wrote. */
function inspector(args: string[]): Promise<{ code: number | null; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["--no-install", "@modelcontextprotocol/inspector", "--cli", process.execPath, HOSTGATE_BIN, "mcp", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => { out += c.toString(); });
    child.on("exit", (code) => {
      const start = out.indexOf("{");
      try {
        resolve({ code, json: JSON.parse(out.slice(start)) as Record<string, unknown> });
      } catch (err) {
        reject(new Error(`inspector printed no JSON (exit ${code}): ${out}`, { cause: err }));
      }
    });
  });
}

it("lists hostgate's tools with the Inspector CLI", async () => {
  const { code, json } = await inspector(["--method", "tools/list"]);
  expect(code).toBe(0);
  expect((json.tools as { name: string }[]).map((t) => t.name)).toContain("get_disk_usage");
}, 60_000);

it("calls tools with arguments through the Inspector CLI", async () => {
  const { json } = await inspector(["--method", "tools/call", "--tool-name", "list_processes", "--tool-arg", "limit=2", "--tool-arg", "sort=memory"]);
  expect((json.structuredContent as { processes: unknown[] }).processes).toHaveLength(2);
  const bad = await inspector(["--method", "tools/call", "--tool-name", "read_log_file", "--tool-arg", "path=/etc/shadow"]);
  expect(bad.json.isError).toBe(true);
  expect(JSON.stringify(bad.json)).toContain("forbidden_path");
}, 60_000);
