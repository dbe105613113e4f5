/**
 * Every tool, direct and fixed, in its success and its error shapes, called by a v1-SDK client (the
 * Inspector's SDK, which itself rejects a structuredContent that does not match the outputSchema) and
 * validated again here with Ajv in strict mode. A tool added without a sample fails the coverage test.
 * The front runs with the configured mock backend so the systemd tools have success shapes too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveViaPty } from "../helpers/daemon.ts";
import { HOSTGATE_BIN, writeConfig } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

type Json = Record<string, unknown>;
interface CallResult { isError?: boolean; structuredContent?: Json; content: { type: string; text?: string }[]; _meta?: Json }

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const UNKNOWN_ARG = "no_such_argument_x";
const pid1IsSystemd = readFileSync("/proc/1/comm", "utf8").trim() === "systemd";
if (pid1IsSystemd) process.stderr.write("SKIPPING the no-systemd case of tool-results: PID 1 is systemd on this machine\n");

/** Arguments that succeed, per tool; a tool without an entry is called with {}. */
const OK: Record<string, Json[]> = {
  plan: [{ intent: "restart nginx" }, { steps: [{ action: "InstallPackage", params: { name: "hello" } }] }, { steps: [{ action: "RemovePackage", params: { name: "procps" } }] }],
  history: [{}, { status: "planned", limit: 3 }],
  plan_command: [{ command: "ls -la /tmp" }, { command: "rm -rf /" }],
  get_process: [{ pid: process.pid }],
  read_log_file: [{ path: "/var/log/dpkg.log", lines: 3 }],
  get_largest_directories: [{ path: "/var/log" }, { path: "/var/log", depth: 2 }],
  search_packages: [{ query: "bash", limit: 3 }],
  get_package_info: [{ name: "bash" }],
  list_processes: [{ limit: 5 }, { sort: "memory", limit: 2 }],
  read_unit: [{ uri: "systemd://system/unit/service/nginx" }],
  read_unit_definition: [{ uri: "systemd://system/unit/service/nginx" }],
  get_service_status: [{ unit: "nginx.service" }],
  list_units: [{ limit: 3 }, { type: "service", state: "failed" }],
  audit_verify: [{}],
  get_host_details: [{ name: "local" }],
  read_on_hosts: [{ tool: "get_memory_usage", hosts: ["local"] }, { tool: "get_disk_usage", hosts: ["local"], arguments: {} }],
  find_actions: [{}, { toolset: "accounts" }, { access: "mutating", query: "firewall" }],
  read_action: [{ action: "ListUsers", args: {} }, { action: "get_sysctl", args: { key: "kernel.ostype" } }],
  // The shipped skills are always there, so the skills tools answer their success shape.
  skills_search: [{ query: "disk full" }],
  skills_route: [{ intent: "the disk is full" }],
  skills_resolve: [{ ref: "disk-full" }],
  skills_inspect: [{ ref: "disk-full" }],
  skills_read: [{ ref: "disk-full", path: "SKILL.md" }],
  skills_install_plan: [{ ref: "disk-full", scope: "user", runtimes: ["claude"] }],
};
/** Tools whose success on this host depends on something it may lack: the error codes they may answer instead. */
const MAY_BE_UNAVAILABLE: Record<string, string[]> = {
  read_journal: ["unavailable"], read_log_file: ["not_found"], get_host_details: ["not_found", "unknown_host"],
  // No lock file in a fresh home: sync plans answer not_found.
  skills_sync_plan: ["not_found"],
};
/** Arguments that fail in a tool-specific way (every tool also gets an unknown argument). */
const ERR: Record<string, Json[]> = {
  plan: [{ intent: "" }, { steps: [{ action: "NoSuchAction", params: {} }] }],
  execute: [{ steps: [{ transaction_id: "tx_nope", action_name: "RestartService", params: { unit: "nginx.service" }, approval_receipt: "yes" }] }],
  get_process: [{ pid: 2 ** 30 }],
  read_on_hosts: [{ tool: "plan", hosts: ["local"] }, { tool: "get_memory_usage", hosts: [] }],
  read_action: [{ action: "NoSuchAction", args: {} }, { action: "RestartService", args: { unit: "nginx.service" } }, { action: "ListUsers", args: { no_such: 1 } }],
  read_log_file: [{ path: "/etc/shadow" }],
  get_largest_directories: [{ path: "var/log" }, { path: "/var/log/dpkg.log" }],
  read_unit: [{ uri: "systemd://system/unit/service/no-such-unit" }],
  get_service_status: [{ unit: "../x" }],
  list_processes: [{ limit: 0 }],
  skills_read: [{ ref: "disk-full", path: "../../etc/shadow" }],
  skills_resolve: [{ ref: "no-such-skill" }],
};

let client: Client;
let adminSocket: string;
const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
const validators = new Map<string, ValidateFunction>();
let tools: { name: string; outputSchema?: Json; inputSchema: Json }[] = [];

async function call(name: string, args: Json): Promise<CallResult> {
  return await client.callTool({ name, arguments: args }) as CallResult;
}

function checkShape(name: string, r: CallResult): void {
  expect(r.content.length, name).toBeGreaterThan(0);
  if (r.structuredContent === undefined) return;
  const validate = validators.get(name);
  expect(validate, `${name} returns structuredContent without an outputSchema`).toBeDefined();
  expect(validate!(r.structuredContent), `${name}: ${JSON.stringify(validate!.errors)}`).toBe(true);
}

const errorOf = (r: CallResult): { code: string; message: string } => {
  const text = r.content.map((c) => c.text ?? "").find((t) => t.startsWith("{"));
  const body = r.structuredContent ?? (JSON.parse(text ?? "{}") as Json);
  if ("error" in body) return body.error as { code: string; message: string };
  return { code: String(r._meta?.["dev.hostgate/error_code"]), message: JSON.stringify(body) };
};

beforeAll(async () => {
  const env = isolatedEnv("results");
  adminSocket = join(env.HOSTGATE_RUNTIME_DIR!, "admin.sock");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HOSTGATE_BIN, "mcp", "--config", writeConfig("backend:\n  type: mock\n")],
    env: { ...process.env, ...env } as Record<string, string>,
    stderr: "ignore",
  });
  client = new Client({ name: "v1-sdk-client", version: "1.32.2" });
  await client.connect(transport);
  tools = (await client.listTools()).tools;
  for (const t of tools) if (t.outputSchema) validators.set(t.name, ajv.compile(t.outputSchema));
});
afterAll(async () => { await client?.close(); });

describe("every tool's results match its own outputSchema (v1 SDK client + Ajv strict)", () => {
  it("every tool has an outputSchema that compiles under Ajv strict, and an input schema that refuses extra keys", () => {
    expect(tools.length).toBeGreaterThan(20);
    for (const t of tools) {
      expect(validators.has(t.name), t.name).toBe(true);
      const strict = t.inputSchema.additionalProperties === false || ((t.inputSchema.anyOf as Json[] | undefined)?.every((s) => s.additionalProperties === false) ?? false);
      expect(strict, t.name).toBe(true);
    }
  });

  it("every tool with required arguments has a success sample here", () => {
    const missing = tools.filter((t) => ((t.inputSchema.required as string[] | undefined) ?? []).length > 0 && !(t.name in OK) && t.name !== "execute").map((t) => t.name);
    expect(missing).toEqual([]);
  });

  it("success shapes: each tool answers without isError, and its structuredContent validates", async () => {
    for (const t of tools.filter((x) => x.name !== "execute")) {
      for (const args of OK[t.name] ?? [{}]) {
        const r = await call(t.name, args);
        if (r.isError && (MAY_BE_UNAVAILABLE[t.name] ?? []).includes(errorOf(r).code)) continue;
        expect(r.isError ?? false, `${t.name} ${JSON.stringify(args)}: ${JSON.stringify(r.content)}`).toBe(false);
        expect(r.structuredContent, t.name).toBeDefined();
        checkShape(t.name, r);
      }
    }
  });

  it("plan of packages carries its warnings within the schema (issue 14)", async () => {
    const r = await call("plan", { steps: [{ action: "InstallPackage", params: { name: "hello" } }] });
    const step = (r.structuredContent!.steps as Json[])[0]!;
    expect(Array.isArray((step.preview as Json).warnings)).toBe(true);
  });

  it("error shapes: isError, a stable code, and any structuredContent still validates", async () => {
    for (const t of tools) {
      for (const args of ERR[t.name] ?? []) {
        const r = await call(t.name, args);
        expect(r.isError, `${t.name} ${JSON.stringify(args)}`).toBe(true);
        expect(errorOf(r).code, t.name).toMatch(/^[a-z_]+$/);
        checkShape(t.name, r);
      }
    }
  });

  it("an error's structured details reach the model in the error body (reviewer report: the daemon protocol dropped them)", async () => {
    const uri = "systemd://system/unit/service/nginx/definition";
    const r = await call("read_unit", { uri });
    expect(r.isError).toBe(true);
    const text = r.content.map((c) => c.text ?? "").find((t) => t.startsWith("{"))!;
    expect(JSON.parse(text)).toMatchObject({ error: { code: "invalid_uri", details: { uri } } });
    checkShape("read_unit", r);
  });

  it("an unknown argument is invalid_params naming it, on every tool", async () => {
    for (const t of tools) {
      const base = t.name === "execute" ? {} : (OK[t.name] ?? [{}])[0]!;
      const r = await call(t.name, { ...base, [UNKNOWN_ARG]: 1 });
      expect(r.isError, t.name).toBe(true);
      const err = errorOf(r);
      expect(err.code, t.name).toBe("invalid_params");
      expect(err.message, t.name).toContain(UNKNOWN_ARG);
    }
  });

  it("execute: a refused-only run is isError with a valid structuredContent; an approved one succeeds and validates", async () => {
    const refused = await call("execute", ERR.execute![0]!);
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent!.results as Json[])[0]!.status).toBe("refused");
    checkShape("execute", refused);

    const planned = await call("plan", { steps: [{ action: "RestartService", params: { unit: "nginx.service" } }] });
    const step = (planned.structuredContent!.steps as Json[])[0]!;
    expect((step.preview as Json).summary).toMatch(/^SIMULATED/);
    const approval = await approveViaPty(adminSocket, step.transaction_id as string);
    expect(approval.output).toContain("SIMULATED");
    expect(approval.receipt, approval.output).not.toBeNull();
    const done = await call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params, approval_receipt: approval.receipt }] });
    expect(done.isError ?? false, JSON.stringify(done.content)).toBe(false);
    expect((done.structuredContent!.results as Json[])[0]!.status).toBe("succeeded");
    checkShape("execute", done);
  });

  it("simulated answers say SIMULATED in the text a model reads first, and in resources", async () => {
    const r = await call("list_units", { limit: 2 });
    expect(r.content[0]!.text).toMatch(/^SIMULATED/);
    const resources = await client.listResources();
    for (const res of resources.resources.slice(0, 3)) expect(JSON.stringify(res)).toContain("SIMULATED");
    const read = await client.readResource({ uri: resources.resources[0]!.uri });
    expect(JSON.stringify(read.contents)).toContain("SIMULATED");
  });
});

describe("without systemd and without a configured backend", () => {
  it.skipIf(pid1IsSystemd)("systemd tools answer unavailable with the reason, never simulated units", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp"], env: { ...process.env, ...isolatedEnv("nosysd") } as Record<string, string>, stderr: "ignore" });
    const plain = new Client({ name: "v1-sdk-client", version: "1.32.2" });
    await plain.connect(transport);
    try {
      const r = await plain.callTool({ name: "list_units", arguments: {} }) as CallResult;
      expect(r.isError).toBe(true);
      expect(errorOf(r)).toMatchObject({ code: "unavailable", message: expect.stringContaining("PID 1") as string });
      expect(JSON.stringify(r)).not.toContain("myapp");
    } finally {
      await plain.close();
    }
  });
});
