import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { HOSTGATE_BIN, runHostgate } from "../helpers/hostgate.ts";

/**
 * Runs the headless MCP Inspector CLI (@modelcontextprotocol/inspector@1.0.3), a client nobody here wrote. `env`:
 * variables it hands the server it spawns (`-e K=V`; the Inspector passes the server only a few of its own).
 */
function inspector(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; json: Record<string, unknown> }> {
  const e = Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]);
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["--no-install", "@modelcontextprotocol/inspector", "--cli", ...e, process.execPath, HOSTGATE_BIN, "mcp", ...args], { stdio: ["ignore", "pipe", "pipe"] });
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

it("T22-clients-plan: the Inspector lists plan with a flat inputSchema and plans a change a human then finds in hostgate pending", async () => {
  // Hermetic: its own home, state and runtime folders; nothing else's daemon can be joined.
  const home = mkdtempSync(join(tmpdir(), `hg-inspector-plan-${process.pid}-`));
  mkdirSync(join(home, "run"), { mode: 0o700 });
  const cfg = join(home, "config.yaml");
  writeFileSync(cfg, "backend:\n  type: mock\n");
  const env = { HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_RUNTIME_DIR: join(home, "run"), HOSTGATE_RUNTIME_DIR: join(home, "run", "hostgate") };
  try {
    const listed = await inspector(["-c", cfg, "--method", "tools/list"], env);
    const plan = (listed.json.tools as { name: string; inputSchema: Record<string, unknown> }[]).find((t) => t.name === "plan");
    expect(plan?.inputSchema).toMatchObject({ type: "object", properties: { steps: { type: "array" }, intent: { type: "string" } } });
    for (const k of ["oneOf", "anyOf", "allOf"]) expect(plan?.inputSchema).not.toHaveProperty(k);
    const target = join(home, "motd");
    const steps = JSON.stringify([{ action: "WriteFile", params: { path: target, content: "hello\n" } }]);
    const { code, json } = await inspector(["-c", cfg, "--method", "tools/call", "--tool-name", "plan", "--tool-arg", `steps=${steps}`], env);
    expect(code).toBe(0);
    const planned = (json.structuredContent as { steps: { transaction_id: string; action_name: string; preview_hash: string }[] }).steps;
    expect(planned).toHaveLength(1);
    expect(planned[0]).toMatchObject({ action_name: "WriteFile", preview_hash: expect.stringMatching(/^[0-9a-f]{64}$/) as string });
    // The Inspector has exited with its front: the plan waits in the state directory for a human.
    const pending = await runHostgate(["pending", "-c", cfg], { env: { ...env, HOSTGATE_SOCKET: "", HOSTGATE_STATE_DIR: "", HOSTGATE_ADMIN_SOCKET: "" } });
    // One line per plan: its id first (one `hostgate approve <plan>` approves all its steps).
    const planId = (json.structuredContent as { plan_id: string }).plan_id;
    expect(pending.stdout).toMatch(new RegExp(`^${planId}\\s`, "m"));
  } finally { rmSync(home, { recursive: true, force: true }); }
}, 120_000);
