import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { connectStdio, writeConfig } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

/**
 * Issue 24, the catalogue surface through a real `hostgate mcp` over stdio with its own embedded daemon:
 * find_actions publishes every offered action with its params schema (reads and changes), read_action runs any read,
 * and the daemon alone judges exposure (tools.disable, tools.exposure: read_only) for both.
 */
type Found = { action: string; call: string; tool?: string; access: string; toolsets: string[]; params: { properties?: Record<string, unknown>; required?: string[] } };
const pid1IsSystemd = readFileSync("/proc/1/comm", "utf8").trim() === "systemd";
type Call = Awaited<ReturnType<Client["callTool"]>>;

const text = (r: Call): string => (r.content as { text: string }[]).map((c) => c.text).join("\n");
const errorCode = (r: Call): string | undefined => (r._meta)?.["dev.hostgate/error_code"] as string | undefined;

async function find(client: Client, args: Record<string, unknown>): Promise<{ actions: Found[]; toolsets: Record<string, { read_only: number; mutating: number }> }> {
  const r = await client.callTool({ name: "find_actions", arguments: args });
  expect(r.isError, text(r)).toBeFalsy();
  return r.structuredContent as { actions: Found[]; toolsets: Record<string, { read_only: number; mutating: number }> };
}

describe("find_actions and read_action (default configuration)", () => {
  let client: Client;
  beforeAll(async () => { client = await connectStdio("legacy", [], isolatedEnv("catalogue-surface")); });
  afterAll(async () => { await client.close(); });

  it("find_actions gives a read with the params schema its direct tool takes (without host), and how to call it", async () => {
    const { actions, toolsets } = await find(client, { toolset: "host" });
    const load = actions.find((a) => a.action === "GetLoad");
    expect(load).toMatchObject({ call: "read_action", tool: "get_load", access: "read_only" });
    const direct = (await client.listTools()).tools.find((t) => t.name === "list_processes")!;
    const lp = actions.find((a) => a.action === "ListProcesses")!;
    const directProps = Object.fromEntries(Object.entries(direct.inputSchema.properties ?? {}).filter(([k]) => k !== "host"));
    expect(lp.params.properties).toEqual(directProps);
    expect(toolsets.host!.read_only).toBeGreaterThanOrEqual(9);
    for (const a of actions) expect(a.toolsets, a.action).toContain("host");
  });

  it("find_actions publishes every mutating action's params for plan steps, and plan accepts a step built from it", async () => {
    const { actions } = await find(client, { access: "mutating" });
    const write = actions.find((a) => a.action === "WriteFile")!;
    expect(write.call).toBe("plan");
    expect(write.params.required).toEqual(expect.arrayContaining(["path", "content"]));
    expect(actions.every((a) => a.access === "mutating" && a.call === "plan")).toBe(true);
    const target = `/tmp/hg-catalogue-surface-${process.pid}.txt`;
    const r = await client.callTool({ name: "plan", arguments: { steps: [{ action: "WriteFile", params: { path: target, content: "x\n" } }] } });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toContain("WriteFile");
  });

  it("find_actions by toolset finds a subject's changes beside its reads (scheduling: ListTimers to read, CreateTimer and RemoveTimer to plan), and no change is a tool", async () => {
    const { actions, toolsets } = await find(client, { toolset: "scheduling" });
    const by = new Map(actions.map((a) => [a.action, a]));
    expect(by.get("ListTimers")).toMatchObject({ call: "read_action", access: "read_only" });
    expect(by.get("CreateTimer")).toMatchObject({ call: "plan", access: "mutating" });
    expect(by.get("CreateTimer")!.params.required).toEqual(["service"]);
    expect(by.get("RemoveTimer")).toMatchObject({ call: "plan", access: "mutating" });
    expect(toolsets.scheduling!.mutating).toBeGreaterThanOrEqual(2);
    const changes = await find(client, { toolset: "accounts", access: "mutating" });
    expect(changes.actions.map((a) => a.action)).toEqual(expect.arrayContaining(["CreateUser", "LockUser", "AddAuthorizedKey"]));
    // every toolset's changes stay plan steps: tools/list holds no tool of a mutating action
    const tools = new Set((await client.listTools()).tools.map((t) => t.name));
    for (const a of (await find(client, { access: "mutating" })).actions) {
      expect(a.toolsets.length, a.action).toBeGreaterThan(0);
      expect(tools.has(a.action.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase()), a.action).toBe(false);
    }
  });

  it("find_actions searches query word by word with synonyms, best match first; an empty answer says what to try (trial f24b)", async () => {
    expect((await find(client, { query: "memory zzznotaword" })).actions[0]!.action).toBe("GetMemoryUsage");
    const first = async (query: string): Promise<string | undefined> => (await find(client, { query })).actions[0]?.action;
    expect(await first("largest files")).toBe("FindLargeFiles");
    expect(await first("certificates expiring")).toBe("ListCertificates");
    expect(await first("kernel log errors")).toBe("ReadKernelLog");
    expect((await find(client, { query: "timers cron" })).actions.slice(0, 2).map((a) => a.action).sort()).toEqual(["ListCronJobs", "ListTimers"]);
    expect((await find(client, { query: "routes dns" })).actions.map((a) => a.action)).toEqual(expect.arrayContaining(["ListRoutes", "GetDnsConfig"]));
    const none = (await client.callTool({ name: "find_actions", arguments: { query: "zzzq" } }));
    expect((none.structuredContent as { actions: unknown[] }).actions).toEqual([]);
    expect((none.structuredContent as { note?: string }).note).toMatch(/Try other words .*find_actions \{ toolset \} with one of: host/);
  });

  it("find_actions names only toolsets its own toolset enum offers (no resource_api_fallback)", async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === "find_actions")!;
    const enumOf = (tool.inputSchema.properties as { toolset: { enum: string[] } }).toolset.enum;
    const { actions, toolsets } = await find(client, {});
    for (const g of Object.keys(toolsets)) expect(enumOf, g).toContain(g);
    for (const a of actions) for (const g of a.toolsets) expect(enumOf, `${a.action} ${g}`).toContain(g);
    expect((tool.inputSchema.properties as { query: { description?: string } }).query.description).toMatch(/words/i);
  });

  it("without systemd, find_actions still offers MaskUnit and CreateTimer but marks them unavailable; ListTimers says systemd is absent (trial f24b)", async () => {
    const { actions } = await find(client, { toolset: "systemd" });
    const mask = actions.find((a) => a.action === "MaskUnit") as Found & { available?: boolean; reason?: string };
    const timer = (await find(client, { toolset: "scheduling" })).actions.find((a) => a.action === "CreateTimer") as Found & { available?: boolean; reason?: string };
    const r = await client.callTool({ name: "read_action", arguments: { action: "ListTimers" } });
    if (pid1IsSystemd) {
      expect(mask.available).toBeUndefined();
      expect(timer.available).toBeUndefined();
      return;
    }
    expect(mask).toMatchObject({ available: false, reason: "cannot run on this host: no systemd", call: "plan" });
    expect(timer).toMatchObject({ available: false, reason: "cannot run on this host: no systemd" });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/systemd is not available on this host/);
    expect(text(r)).not.toMatch(/list_units|D-Bus properties/);
  });

  it("read_action runs a read by its tool name or action name, answering as the direct tool does", async () => {
    for (const action of ["get_memory_usage", "GetMemoryUsage"]) {
      const r = await client.callTool({ name: "read_action", arguments: { action } });
      expect(r.isError, text(r)).toBeFalsy();
      const direct = await client.callTool({ name: "get_memory_usage", arguments: {} });
      expect(Object.keys(r.structuredContent!).sort()).toEqual(Object.keys(direct.structuredContent!).sort());
      expect((r._meta as Record<string, { action: string }>)["dev.hostgate/provenance"]!.action).toBe("GetMemoryUsage");
    }
  });

  it("read_action passes args through to the action's own schema (a bad one is invalid_params naming it)", async () => {
    const ok = await client.callTool({ name: "read_action", arguments: { action: "list_processes", args: { limit: 2 } } });
    expect(ok.isError, text(ok)).toBeFalsy();
    expect((ok.structuredContent as { processes: unknown[] }).processes.length).toBeLessThanOrEqual(2);
    const bad = await client.callTool({ name: "read_action", arguments: { action: "list_processes", args: { no_such_argument_x: 1 } } });
    expect(errorCode(bad)).toBe("invalid_params");
    expect(text(bad)).toContain("no_such_argument_x");
  });

  it("read_action refuses a mutating action in the daemon (not_read_only), and an unknown one", async () => {
    const r = await client.callTool({ name: "read_action", arguments: { action: "WriteFile", args: { path: "/tmp/x", content: "y" } } });
    expect(r.isError).toBe(true);
    expect(errorCode(r)).toBe("not_read_only");
    const u = await client.callTool({ name: "read_action", arguments: { action: "list_nothing_here" } });
    expect(u.isError).toBe(true);
    expect(text(u)).toMatch(/ListNothingHere|list_nothing_here/);
  });

  it("bad read_action and find_actions input is a clear error saying what to send", async () => {
    const noAction = await client.callTool({ name: "read_action", arguments: { args: {} } });
    expect(errorCode(noAction)).toBe("invalid_params");
    expect(text(noAction)).toMatch(/action must be a catalogue action's name.*find_actions/);
    const arrayArgs = await client.callTool({ name: "read_action", arguments: { action: "get_load", args: [1] } });
    expect(errorCode(arrayArgs)).toBe("invalid_params");
    expect(text(arrayArgs)).toMatch(/args must be an object/);
    const badSet = await client.callTool({ name: "find_actions", arguments: { toolset: "nope" } });
    expect(errorCode(badSet)).toBe("invalid_params");
    expect(text(badSet)).toContain("toolset");
  });
});

describe("the daemon judges exposure for find_actions and read_action", () => {
  it("tools.disable naming a read hides it from find_actions, and read_action is refused tool_disabled", async () => {
    const client = await connectStdio("legacy", ["--config", writeConfig("tools:\n  disable: [get_load]\n")], isolatedEnv("catalogue-disable"));
    try {
      expect((await find(client, { toolset: "host" })).actions.map((a) => a.action)).not.toContain("GetLoad");
      const r = await client.callTool({ name: "read_action", arguments: { action: "get_load" } });
      expect(errorCode(r)).toBe("tool_disabled");
      expect(text(r)).toContain("tools.disable");
    } finally {
      await client.close();
    }
  });

  it("tools.exposure read_only: find_actions lists no mutating action (plan is hidden)", async () => {
    const client = await connectStdio("legacy", ["--config", writeConfig("tools:\n  exposure: read_only\n")], isolatedEnv("catalogue-ro"));
    try {
      expect((await find(client, { access: "mutating" })).actions).toEqual([]);
      expect((await find(client, {})).actions.length).toBeGreaterThan(10);
    } finally {
      await client.close();
    }
  });

  it("a toolset set false hides its reads from find_actions", async () => {
    const client = await connectStdio("legacy", ["--config", writeConfig("tools:\n  groups:\n    packages: false\n")], isolatedEnv("catalogue-group"));
    try {
      const { actions, toolsets } = await find(client, { toolset: "packages" });
      expect(actions.filter((a) => a.access === "read_only")).toEqual([]);
      expect(toolsets.packages?.read_only ?? 0).toBe(0);
    } finally {
      await client.close();
    }
  });
});
