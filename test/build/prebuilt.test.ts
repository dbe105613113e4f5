/**
 * dist/prebuilt.json (written by `npm run build`, which `npm test` runs first) must say exactly what the sources
 * compute at run time: every action's descriptor, each family's action names and every fixed tool's wire
 * schemas. A schema changed without a rebuild, or a prebuild that drifted from describeAction, fails here.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { describeAction } from "../../src/app/describe.ts";
import { DISTRO_FAMILIES } from "../../src/core/catalogue/action.ts";
import { actionsFor, CATALOGUE } from "../../src/core/catalogue/index.ts";
import type { Prebuilt } from "../../src/ipc/prebuilt.ts";
import { FIXED_TOOLS } from "../../src/mcp/server.ts";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const table = JSON.parse(readFileSync(join(DIST, "prebuilt.json"), "utf8")) as Prebuilt;

describe("dist/prebuilt.json", () => {
  it("is tied to the bundle beside it by its build id", () => {
    expect(table.build_id).toMatch(/^[0-9a-f-]{36}$/);
    const scripts = readdirSync(DIST).filter((f) => f.endsWith(".js"));
    expect(scripts.filter((f) => readFileSync(join(DIST, f), "utf8").includes(JSON.stringify(table.build_id)))).toHaveLength(1);
  });

  it("when present but unreadable, stops the front with the file and the fix named (no silent fallback)", () => {
    // A copy of the bundle inside the checkout, so its packages resolve from the same node_modules.
    const copy = mkdtempSync(join(DIST, "..", ".dist-copy-"));
    try {
      cpSync(DIST, copy, { recursive: true });
      writeFileSync(join(copy, "prebuilt.json"), "{ not json");
      const env = { ...process.env, HOSTGATE_STATE_DIR: join(copy, "state"), HOSTGATE_RUNTIME_DIR: join(copy, "run") };
      const input = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`;
      const r = spawnSync(process.execPath, [join(copy, "hostgate.js"), "mcp"], { env, input, encoding: "utf8", timeout: 30_000 });
      expect(r.stderr).toContain(`${join(copy, "prebuilt.json")} is not valid JSON`);
      expect(r.stderr).toContain("npm run build");
      expect(r.status).toBe(1);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("when not a table, or this build's id on a table without its parts, stops the front with the file and the fix named (not a TypeError)", () => {
    const copy = mkdtempSync(join(DIST, "..", ".dist-copy-"));
    try {
      cpSync(DIST, copy, { recursive: true });
      const input = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`;
      const env = { ...process.env, HOSTGATE_STATE_DIR: join(copy, "state"), HOSTGATE_RUNTIME_DIR: join(copy, "run") };
      for (const [content, says] of [["null", "is not a table of descriptors"], [JSON.stringify({ build_id: table.build_id, actions: table.actions }), "has this build's id but no families, tools"]] as const) {
        writeFileSync(join(copy, "prebuilt.json"), content);
        const r = spawnSync(process.execPath, [join(copy, "hostgate.js"), "mcp"], { env, input, encoding: "utf8", timeout: 30_000 });
        expect(r.stderr, content).toContain(`${join(copy, "prebuilt.json")} ${says}`);
        expect(r.stderr).toContain("npm run build");
        expect(r.stderr).not.toContain("TypeError");
        expect(r.status).toBe(1);
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("holds every catalogue action's descriptor as describeAction computes it", () => {
    expect(Object.keys(table.actions).sort()).toEqual(CATALOGUE.map((a) => a.name).sort());
    for (const a of CATALOGUE) expect(table.actions[a.name], a.name).toEqual(describeAction(a));
  });

  it("names, per distro family, the actions actionsFor offers", () => {
    for (const f of DISTRO_FAMILIES) expect(table.families[f], f).toEqual(actionsFor(f).map((a) => a.name));
  });

  it("holds every fixed tool's input and output schema as its spec computes them", () => {
    expect(Object.keys(table.tools).sort()).toEqual(FIXED_TOOLS.map((t) => t.name).sort());
    for (const t of FIXED_TOOLS) expect(table.tools[t.name], t.name).toEqual({ input: t.inputSchema, output: t.outputSchema });
  });
});
