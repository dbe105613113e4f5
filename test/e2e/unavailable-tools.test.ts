/**
 * Issue 22: a direct tool whose backend this machine lacks stays listed (it can read other hosts through
 * `host`) and says so in one sentence. Real `hostgate mcp` fronts (the deferred describe of the build) and a
 * composed daemon's `describe`, on fresh state; what is expected comes from this machine itself: /proc/1/comm
 * (is PID 1 systemd?) and what journalctl answers (does it find journal files?).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon } from "../../src/daemon/compose.ts";
import { unavailableSentence } from "../../src/mcp/tools/direct.ts";
import { connectStdio, writeConfig } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

const SYSTEMD_TOOLS = ["list_units", "get_service_status", "read_unit", "list_failed_units"];
const pid1IsSystemd = readFileSync("/proc/1/comm", "utf8").trim() === "systemd";
const journalctl = spawnSync("journalctl", ["--lines=1", "--no-pager"], { encoding: "utf8" });
const noJournal = journalctl.error !== undefined || /No journal files were found/i.test(journalctl.stderr);

const clients: Client[] = [];
afterAll(async () => { for (const c of clients) await c.close(); });

async function descriptions(configYaml: string): Promise<Map<string, string>> {
  const client = await connectStdio("legacy", ["--config", writeConfig(configYaml)], isolatedEnv("unavailable"));
  clients.push(client);
  return new Map((await client.listTools()).tools.map((t) => [t.name, t.description ?? ""]));
}

describe("tools whose backend is unavailable on this machine say so (issue 22)", () => {
  it("systemd tools: the sentence exactly when PID 1 is not systemd and no backend is configured; read_journal when journalctl finds no journal", async () => {
    const auto = await descriptions("tools:\n  exposure: all\n");
    for (const name of SYSTEMD_TOOLS) {
      expect(auto.has(name), name).toBe(true);
      expect(auto.get(name)!.endsWith(unavailableSentence("no systemd")), `${name}: ${auto.get(name)}`).toBe(!pid1IsSystemd);
    }
    const journal = auto.get("read_journal")!;
    expect(journal.includes("Unavailable on local ("), journal).toBe(noJournal);
    // Tools that need neither never carry it.
    for (const name of ["get_disk_usage", "list_processes", "read_log_file", "plan"]) expect(auto.get(name), name).not.toContain("Unavailable on local");
  });

  it("a configured backend (mock) is available: no systemd tool carries the sentence", async () => {
    const mock = await descriptions("backend:\n  type: mock\n");
    for (const name of SYSTEMD_TOOLS) expect(mock.get(name), name).not.toContain("unavailable (no systemd)");
  });

  it("the composed daemon describes the same local_unavailable as the front listed from the build", async () => {
    const env = isolatedEnv("unavailable-daemon");
    process.env.HOSTGATE_STATE_DIR = env.HOSTGATE_STATE_DIR;
    const d = await composeDaemon(ConfigSchema.parse({}), { mode: "embedded", announce: () => undefined });
    delete process.env.HOSTGATE_STATE_DIR;
    try {
      const r = await d.service.agent("t").call("describe", {});
      if (!r.ok) throw new Error(r.error.message);
      const un = r.value.local_unavailable ?? {};
      expect(un.ListUnits).toBe(pid1IsSystemd ? undefined : "no systemd");
      expect(un.ReadJournal !== undefined).toBe(noJournal);
      const front = await descriptions("tools:\n  exposure: all\n");
      for (const [action, why] of Object.entries(un)) {
        const tool = [...front.keys()].find((n) => n === action.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase());
        if (tool) expect(front.get(tool)!.endsWith(unavailableSentence(why)), tool).toBe(true);
      }
    } finally {
      await d.close();
    }
  });
});
