import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectStdio } from "../helpers/hostgate.ts";
import { ipcFromProcess, NOBODY, type Reply } from "../helpers/ipc-from-process.ts";

/**
 * Issue 19, "the daemon decides what is offered": `tools.exposure`, tool groups and "exec_on_host off unless
 * exec.enabled" were applied only to the front's tools/list, so a member of the agent group called exec_on_host and
 * plan on the agent socket directly. Real `hostgate daemon` processes (root, agent socket group nogroup); the model
 * is uid nobody in that group, speaking the daemon protocol itself from a process without a terminal.
 */
const dirs: string[] = [];
const daemons: DaemonProcess[] = [];

async function daemonWith(yaml: string): Promise<DaemonProcess> {
  const dir = mkdtempSync(join(tmpdir(), "hg-exposure-"));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  const d = await startDaemon(`backend:\n  type: mock\ndaemon:\n  agent_group: nogroup\n${yaml}`, { dir });
  daemons.push(d);
  return d;
}
const asModel = (d: DaemonProcess, method: string, params: unknown): Promise<Reply> => ipcFromProcess(d.agentSocket, method, params, { uid: NOBODY });
const error = (r: Reply): { code: string; message: string; hint?: string } => (r as unknown as { error: { code: string; message: string; hint?: string } }).error;
const EXEC = { host: "nowhere.invalid", command: "id" };
/** An inventory of the test's own (one host, no user's ~/.ssh/config), no policy: exec is refused by the gate. */
const HERMETIC_HOSTS = "inventory:\n  providers:\n    - kind: static\n      name: t\n      hosts:\n        - { name: lab1, address: 192.0.2.1 }\n";

let plain: DaemonProcess;
let narrow: DaemonProcess;
let enabled: DaemonProcess;
let legacy: DaemonProcess;
let groupsOff: DaemonProcess;

beforeAll(async () => {
  [plain, narrow, enabled, legacy, groupsOff] = await Promise.all([
    daemonWith(""),
    daemonWith("tools:\n  exposure: read_only\n  groups:\n    logs: false\n"),
    daemonWith(`exec:\n  enabled: true\n${HERMETIC_HOSTS}`),
    daemonWith(`tools:\n  groups:\n    hosts: true\n${HERMETIC_HOSTS}`),
    daemonWith("tools:\n  groups:\n    logs: false\n    scheduling: false\n"),
  ]);
});
afterAll(async () => {
  await Promise.all(daemons.map((d) => d.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the daemon applies the exposure rule to the methods it serves", () => {
  it("exec_on_host is refused on the agent socket unless exec.enabled, with a stable code saying how to turn it on; audited", async () => {
    const r = await asModel(plain, "exec_on_host", EXEC);
    expect(r).toMatchObject({ ok: false });
    expect(error(r)).toMatchObject({ code: "tool_disabled", message: "exec_on_host is turned off in this daemon: exec_on_host is off unless exec.enabled is true." });
    expect(error(r).hint).toContain("set exec.enabled: true in the daemon's configuration");
    const history = await asModel(plain, "history", { limit: 5 });
    expect(JSON.stringify(history)).toContain("tool.refused");
    expect(JSON.stringify(history)).not.toContain("exec.decision");
  });

  it("exec.enabled: true lets the call through to the gate (here: refused, no policy), and so does the older tools.groups.hosts: true", async () => {
    for (const d of [enabled, legacy]) {
      const r = await asModel(d, "exec_on_host", { host: "lab1", command: "id" });
      expect(error(r)).toMatchObject({ code: "refused" });
    }
  });

  it("tools.exposure: read_only refuses plan on the socket; read-only queries still answer", async () => {
    const r = await asModel(narrow, "plan", { steps: [{ action: "WriteFile", params: { path: "/tmp/hg-never", content: "x" } }] });
    expect(error(r)).toMatchObject({ code: "tool_disabled" });
    expect(error(r).message).toContain("plan is turned off in this daemon: tools.exposure is read_only");
    expect(error(r).hint).toContain("set tools.exposure: all");
    expect(await asModel(narrow, "query", { action: "GetLoad", args: {} })).toMatchObject({ ok: true });
  });

  it("a group set false refuses the direct tools of its actions (query ReadLogFile with tools.groups.logs: false)", async () => {
    const r = await asModel(narrow, "query", { action: "ReadLogFile", args: { path: "/var/log/dpkg.log" } });
    expect(error(r)).toMatchObject({ code: "tool_disabled", message: "read_log_file is turned off in this daemon: its group is off (tools.groups.logs: false)." });
    expect(error(r).hint).toContain("set tools.groups.logs: true, or add read_log_file to tools.enable");
  });

  it("a toolset set false hides its changes too: plan refuses a step of an action only in disabled toolsets, naming the key; nothing is planned; audited", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hg-exposure-log-"));
    dirs.push(dir);
    const r = await asModel(groupsOff, "plan", { steps: [{ action: "WriteFile", params: { path: join(dir, "a"), content: "x" } }, { action: "TruncateLogFile", params: { path: "/var/log/dpkg.log" } }] });
    expect(error(r)).toMatchObject({ code: "tool_disabled", message: "TruncateLogFile is turned off in this daemon: its toolset is off (tools.groups.logs: false). Nothing was planned." });
    expect(error(r).hint).toContain("set tools.groups.logs: true in the daemon's configuration");
    const history = JSON.stringify(await asModel(groupsOff, "history", { limit: 20 }));
    expect(history).toContain("tool.refused");
    expect(history).not.toContain("plan.created");
    // A change in a toolset still on is planned; one in a disabled toolset and an enabled one (CreateTimer:
    // scheduling + systemd) is not refused for its toolsets.
    expect(await asModel(groupsOff, "plan", { steps: [{ action: "WriteFile", params: { path: join(dir, "a"), content: "x" } }] })).toMatchObject({ ok: true });
    const timer = await asModel(groupsOff, "plan", { steps: [{ action: "CreateTimer", params: { service: "hg-never.service", on_calendar: "daily" } }] });
    expect(JSON.stringify(timer)).not.toContain("tool_disabled");
    // The same daemon with its groups on plans TruncateLogFile's step as far as its own checks go.
    expect(JSON.stringify(await asModel(plain, "plan", { steps: [{ action: "TruncateLogFile", params: { path: "/var/log/dpkg.log" } }] }))).not.toContain("tool_disabled");
  });

  it("find_actions lists no change whose toolsets are all off, and counts none for them; a change in one toolset still on stays", async () => {
    type Found = { value: { actions: { action: string; access: string }[]; toolsets: Record<string, { read_only: number; mutating: number }> } };
    const off = (await asModel(groupsOff, "find_actions", {})) as unknown as Found;
    const names = off.value.actions.map((a) => a.action);
    for (const hidden of ["TruncateLogFile", "DeleteLogFile", "RunLogrotate", "VacuumJournal", "ReadLogFile"]) expect(names).not.toContain(hidden);
    expect(names).toEqual(expect.arrayContaining(["CreateTimer", "RemoveTimer", "WriteFile", "RestartService"]));
    expect(off.value.toolsets.logs?.mutating ?? 0).toBe(0); // its reads also in an enabled toolset (ReadKernelLog: kernel) stay
    expect(off.value.toolsets.scheduling).toEqual({ read_only: 0, mutating: 2 });
    const on = (await asModel(plain, "find_actions", { toolset: "logs", access: "mutating" })) as unknown as Found;
    expect(on.value.actions.map((a) => a.action)).toEqual(expect.arrayContaining(["TruncateLogFile", "DeleteLogFile", "RunLogrotate", "VacuumJournal"]));
  });

  it("doctor is served whatever is hidden, and says which gated tools are off and why", async () => {
    const checks = (r: Reply): { name: string; detail: string }[] => (r as unknown as { value: { checks: { name: string; detail: string }[] } }).value.checks;
    const off = checks(await asModel(plain, "doctor", {})).find((c) => c.name === "gated tools")!;
    expect(off.detail).toContain("exec_on_host (exec_on_host is off unless exec.enabled is true; to offer it: set exec.enabled: true)");
    expect(off.detail).toContain("skills_execute (skills exec gate:");
    const narrowed = checks(await asModel(narrow, "doctor", {})).find((c) => c.name === "gated tools")!;
    expect(narrowed.detail).toContain("plan (tools.exposure is read_only");
    const on = checks(await asModel(enabled, "doctor", {})).find((c) => c.name === "gated tools")!;
    expect(on.detail).not.toContain("exec_on_host");
  });
});

describe("the front answers a call to a hidden tool with how to turn it on", () => {
  let client: Client;
  beforeAll(async () => { client = await connectStdio("legacy", ["--config", plain.configPath], { HOSTGATE_SOCKET: plain.agentSocket }); });
  afterAll(async () => { await client?.close(); });

  it("exec_on_host is not listed; calling it is -32602 naming exec.enabled: true", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).not.toContain("exec_on_host");
    await expect(client.callTool({ name: "exec_on_host", arguments: EXEC })).rejects.toThrow(/exec_on_host is not offered by this server: exec_on_host is off unless exec\.enabled is true\. To offer it, set exec\.enabled: true/);
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool\. Call tools\/list/);
  });

  // Issue 19 leftover: the front lists what the daemon offers, so a front whose own config turns exec_on_host on
  // no longer lists a tool that only fails; the call is answered with the daemon's reason and its configuration.
  // (The daemon's own refusal, tool_disabled, is what the socket tests above check.)
  it("a front whose own config turns exec_on_host on does not list it when the daemon has it off, and says where to turn it on", async () => {
    const front = await connectStdio("legacy", ["--config", enabled.configPath], { HOSTGATE_SOCKET: plain.agentSocket });
    try {
      expect((await front.listTools()).tools.map((t) => t.name)).not.toContain("exec_on_host");
      await expect(front.callTool({ name: "exec_on_host", arguments: EXEC })).rejects.toThrow(new RegExp(`exec_on_host is off unless exec\\.enabled is true\\. To offer it, set exec\\.enabled: true in the configuration of the configured daemon at ${plain.agentSocket.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    } finally {
      await front.close();
    }
  });
});
