/**
 * A plan whose steps only read (newcomer report: "free disk space on /" became a GetDiskUsage step that then
 * needed a receipt): refused with the read-only tool to call; read-only steps beside changes are listed, not
 * planned. On a composed daemon (real SQLite, mock systemd), through the in-process client.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";

const work = mkdtempSync(join(tmpdir(), `hg-plan-ro-polish-${process.pid}-`));
let d: ComposedDaemon;

beforeAll(async () => {
  process.env.HOSTGATE_STATE_DIR = join(work, "state");
  d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
});
afterAll(async () => { await d.close(); });

const planned = (): number => d.openStores().transactions.list({ limit: 1000 }).length;

describe("plan and read-only steps", () => {
  it("an intent that maps only to reads is refused with the tool to call, and nothing is planned", async () => {
    const before = planned();
    const r = await d.service.agent("t").call("plan", { intent: "free disk space on /" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("no_plan");
    expect(r.error.message).toContain("matches only read-only action (GetDiskUsage): nothing would change");
    expect(r.error.hint).toContain("get_disk_usage {}");
    expect(r.error.hint).toContain("RestartService");
    expect(r.error.details).toEqual({ read_only: [{ action_name: "GetDiskUsage", tool: "get_disk_usage", params: {} }] });
    expect(planned()).toBe(before);
  });

  it("explicit read-only steps alone are refused the same way", async () => {
    const r = await d.service.agent("t").call("plan", { steps: [{ action: "GetLoad", params: {} }, { action: "ListProcesses", params: { limit: 5 } }] });
    expect(r.ok ? null : r.error).toMatchObject({ code: "no_plan", message: expect.stringContaining("These steps are only read-only actions (GetLoad, ListProcesses)") as string, hint: expect.stringContaining("list_processes {\"limit\":5") as string });
  });

  it("reads beside a change: only the change becomes a transaction; the reads are listed with their tools", async () => {
    const before = planned();
    const r = await d.service.agent("t").call("plan", { intent: "restart nginx and check disk usage" });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.steps.map((s) => s.action_name)).toEqual(["RestartService"]);
    expect(r.value.read_only).toEqual([{ action_name: "GetDiskUsage", tool: "get_disk_usage", params: {} }]);
    expect(r.value.next).toContain("Read-only steps were not planned (they need no approval): call get_disk_usage {} directly.");
    expect(planned()).toBe(before + 1);
  });

  it("a plan of changes alone has no read_only list", async () => {
    const r = await d.service.agent("t").call("plan", { intent: "restart nginx" });
    expect(r.ok && "read_only" in r.value).toBe(false);
  });
});
