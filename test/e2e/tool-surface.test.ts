import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { budgetToolset, FULL_SURFACE_YAML } from "../helpers/context-cost.ts";
import { connectStdio, runHostgate, writeConfig } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

const ANNOTATIONS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** Where the per-toolset snapshots live (issue 24: one file per toolset, so a change shows up in its own group). */
const SNAPSHOTS = fileURLToPath(new URL("../__snapshots__/tools/", import.meta.url));

describe("advertised tool definitions", () => {
  let client: Client;
  let full: Client;
  beforeAll(async () => {
    // Its own daemon: a front lists what the daemon it uses offers (issue 19), and this user's default one is
    // shared with every front started without a runtime directory, whatever configuration started it.
    client = await connectStdio("legacy", [], isolatedEnv("default-surface"));
    // Its own embedded daemon: a front lists what the daemon it uses offers (issue 19), and the default front's
    // daemon (shared with every default-config front of the run) does not offer the full surface.
    full = await connectStdio("legacy", ["--config", writeConfig(FULL_SURFACE_YAML)], isolatedEnv("full-surface"));
  });
  afterAll(async () => { await client.close(); await full.close(); });

  it("match the committed snapshots, one per toolset, of the full surface (names, schemas, annotations, descriptions)", async () => {
    const { tools } = await full.listTools();
    // What this machine lacks (no systemd, no journal) is said per machine (test/e2e/unavailable-tools.test.ts):
    // left out of the snapshot, which is the same on every machine.
    const same = tools.map((t) => ({ ...t, description: t.description?.replace(/ Unavailable on local \([^)]*\)\.$/, "") }));
    const groups = new Map<string, typeof same>();
    for (const t of same) groups.set(budgetToolset(t.name), [...(groups.get(budgetToolset(t.name)) ?? []), t]);
    for (const [g, list] of groups) await expect(JSON.stringify(list, null, 2) + "\n").toMatchFileSnapshot(`${SNAPSHOTS}${g}.json`);
    // A toolset that lost all its tools must lose its snapshot too (no stale file).
    const files = existsSync(SNAPSHOTS) ? readdirSync(SNAPSHOTS).filter((f) => f !== "default.json") : [];
    expect(files.sort()).toEqual([...groups.keys()].map((g) => `${g}.json`).sort());
  });

  it("match the committed list of the default tools/list (which tools a default configuration lists)", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    await expect(JSON.stringify(names, null, 2) + "\n").toMatchFileSnapshot(`${SNAPSHOTS}default.json`);
  });

  it("set all four annotations explicitly on every tool, with output schemas, and no top-level oneOf/anyOf/allOf", async () => {
    for (const tool of (await full.listTools()).tools) {
      for (const a of ANNOTATIONS) expect(typeof tool.annotations?.[a], `${tool.name}.${a}`).toBe("boolean");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.inputSchema.type, tool.name).toBe("object");
      for (const k of ["oneOf", "anyOf", "allOf"]) expect(k in tool.inputSchema, `${tool.name} inputSchema.${k}`).toBe(false);
    }
  });
});

describe("exposure configuration", () => {
  async function toolNames(yaml: string): Promise<string[]> {
    const client = await connectStdio("legacy", ["--config", writeConfig(yaml)], isolatedEnv("exposure"));
    try {
      return (await client.listTools()).tools.map((t) => t.name);
    } finally {
      await client.close();
    }
  }

  it("turns a group off, and tools.enable brings one of its tools back", async () => {
    const names = await toolNames("tools:\n  groups:\n    packages: false\n  enable: [get_package_info]\n");
    expect(names).not.toContain("search_packages");
    expect(names).toContain("get_package_info");
  });

  it("tools.disable hides a single tool", async () => {
    expect(await toolNames("tools:\n  disable: [read_journal]\n")).not.toContain("read_journal");
  });

  it("read_only exposure keeps only read-only tools", async () => {
    const client = await connectStdio("legacy", ["--config", writeConfig("tools:\n  exposure: read_only\n")], isolatedEnv("read-only"));
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.length).toBeGreaterThan(0);
      for (const t of tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("configuration errors exit 2 before anything starts", () => {
  const cases: [string, string, RegExp][] = [
    ["unknown root key", "servr:\n  port: 1\n", /unknown key\(s\) "servr"/],
    ["unknown nested key", "server:\n  prot: 1\n", /server: unknown key\(s\) "prot"/],
    ["bad value", "server:\n  port: 99999\n", /server\.port/],
    ["bad exposure", "tools:\n  exposure: everything\n", /tools\.exposure/],
    ["enable and disable clash", "tools:\n  enable: [get_load]\n  disable: [get_load]\n", /both tools\.enable and tools\.disable/],
    ["unknown tool name", "tools:\n  disable: [run_command]\n", /unknown tool\(s\): run_command/],
    ["not YAML", "server: [\n", /not valid YAML/],
  ];
  for (const [name, yaml, message] of cases) {
    it(name, async () => {
      const r = await runHostgate(["mcp", "--config", writeConfig(yaml)]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe("");
    });
  }

  it("a --config path that does not exist", async () => {
    const r = await runHostgate(["serve", "--config", "/nonexistent/hostgate.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("does not exist");
  });

  it("a bad --port flag", async () => {
    const r = await runHostgate(["serve", "--port", "http"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--port");
  });
});
