/**
 * The approval workflow end to end with real processes: SDK client ↔ `hostgate mcp` ↔ `hostgate daemon`, a
 * human approval simulated by `hostgate approve` under a pseudo-terminal, and real targets: a file in a temp
 * dir and units of a real `systemd --user` manager.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { DbusUnitManager } from "../../src/adapters/systemd-dbus.ts";
import { approveViaPty, rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectStdio } from "../helpers/hostgate.ts";
import { startUserManager, userManagerPrereqs, type UserManagerPeer } from "../peers/systemd-user.ts";

const missing = userManagerPrereqs();
if (missing && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`systemd --user peer required: ${missing}`);
if (missing) process.stderr.write(`SKIPPING approval e2e: ${missing}\n`);

type Json = Record<string, unknown>;
let peer: UserManagerPeer;
let daemon: DaemonProcess;
let client: Client;
const work = mkdtempSync(join(tmpdir(), "hg-approval-"));
const TOKEN = "k".repeat(40);

// Everything here runs as root (front, daemon, approver): a same-user approval, allowed here so the workflow
// can run, and labelled separation: none. The separated setup is test/security/approval-routes.test.ts.
const config = (bus: string): string => `backend:\n  type: dbus\n  bus_address: "${bus}"\napproval:\n  same_user: allow\n`;

async function tool(name: string, args: Json): Promise<{ isError: boolean; value: Json }> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as { text: string }[])[0]!.text;
  return { isError: r.isError === true, value: (r.structuredContent as Json | undefined) ?? (JSON.parse(text) as Json) };
}

async function planOne(action: string, params: Json): Promise<Json> {
  const r = await tool("plan", { steps: [{ action, params }] });
  expect(r.isError, JSON.stringify(r.value)).toBe(false);
  return (r.value.steps as Json[])[0]!;
}

async function approved(step: Json): Promise<string> {
  const r = await approveViaPty(daemon.adminSocket, step.transaction_id as string);
  expect(r.receipt, r.output).not.toBeNull();
  return r.receipt!;
}

const executeStep = (step: Json, receipt: string, override: Json = {}): Promise<{ isError: boolean; value: Json }> =>
  tool("execute", { steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params, approval_receipt: receipt, ...override }] });

const firstResult = (r: { value: Json }): Json => (r.value.results as Json[])[0]!;

describe.skipIf(missing !== null)("approval workflow with real processes", () => {
  beforeAll(async () => {
    peer = await startUserManager();
    const m = new DbusUnitManager({ busAddress: peer.busAddress, ref: { scope: "system" } });
    await m.startUnit("hg-slow.service", { timeoutMs: 10_000 });
    await m.close();
    daemon = await startDaemon(config(peer.busAddress), { args: ["--listen", "tcp://127.0.0.1:0"], env: { HOSTGATE_TOKEN: TOKEN } });
    client = await connectStdio("legacy", ["--config", daemon.configPath], { HOSTGATE_SOCKET: daemon.agentSocket });
  });
  afterAll(async () => {
    await client?.close();
    await daemon?.stop();
    await peer?.stop();
  });

  it("plans, is approved by a human at a terminal, and writes a file exactly once", async () => {
    const target = join(work, "motd");
    writeFileSync(target, "old\n");
    const step = await planOne("WriteFile", { path: target, content: "new\n" });
    // The model sees the intended state as a count and hash, not the current file nor a diff (plan is not a
    // way to read files, nor an oracle for guessed lines) …
    expect((step.preview as Json).text).toContain("4 bytes in 1 line");
    expect((step.preview as Json).text).not.toContain("-old");
    expect(readFileSync(target, "utf8")).toBe("old\n");
    // … while the human at the terminal sees the whole diff.
    const approval = await approveViaPty(daemon.adminSocket, step.transaction_id as string);
    expect(approval.output).toContain("-old");
    expect(approval.output).toContain("+new");
    const receipt = approval.receipt!;
    expect(approval.output).toContain("Separation:       NONE (planner and approver are both root)");
    expect(approval.output).toMatch(/Planned by   client "[^"]+" \(its own claim\) as uid 0, explicit steps written by the client/);
    expect(approval.output).toMatch(/Audit witness:    \d+:[0-9a-f]{64}/);
    const first = await executeStep(step, receipt);
    expect(firstResult(first)).toMatchObject({ status: "succeeded", separation: "none" });
    expect(first.value.checkpoint).toMatchObject({ seq: expect.any(Number) as number });
    expect(readFileSync(target, "utf8")).toBe("new\n");
    const again = await executeStep(step, receipt);
    expect(firstResult(again)).toMatchObject({ status: "refused", error: { code: "receipt_used" } });
  });

  it("restarts a unit of a real systemd manager, and the next read sees the new main pid", async () => {
    const before = (await tool("get_service_status", { unit: "hg-sleep.service" })).value;
    const plan = await tool("plan", { intent: "restart hg-sleep" });
    const step = (plan.value.steps as Json[])[0]!;
    expect(step.action_name).toBe("RestartService");
    const r = await executeStep(step, await approved(step));
    expect(firstResult(r)).toMatchObject({ status: "succeeded" });
    const after = (await tool("get_service_status", { unit: "hg-sleep.service" })).value;
    expect(after.main_pid).not.toBe(before.main_pid);
    expect(after.active_state).toBe("active");
  });

  it("refuses, each with its code: a chat 'yes', no approval, another transaction's receipt, changed params, a changed host", async () => {
    const a = await planOne("WriteFile", { path: join(work, "a.txt"), content: "a\n" });
    const b = await planOne("WriteFile", { path: join(work, "b.txt"), content: "b\n" });
    expect(firstResult(await executeStep(a, "yes"))).toMatchObject({ status: "refused", error: { code: "invalid_receipt" } });
    expect(firstResult(await executeStep(a, `hgr_${"A".repeat(43)}`))).toMatchObject({ error: { code: "not_approved" } });
    const receiptA = await approved(a);
    expect(firstResult(await executeStep(b, receiptA))).toMatchObject({ error: { code: "receipt_for_other_transaction" } });
    expect(firstResult(await executeStep(a, receiptA, { params: { path: join(work, "a.txt"), content: "evil\n" } }))).toMatchObject({ error: { code: "params_changed" } });
    writeFileSync(join(work, "a.txt"), "someone else wrote this\n");
    expect(firstResult(await executeStep(a, receiptA))).toMatchObject({ error: { code: "plan_changed" } });
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("someone else wrote this\n");
    expect(existsSync(join(work, "b.txt"))).toBe(false);
    const missingReceipt = await tool("execute", { steps: [{ transaction_id: a.transaction_id, action_name: a.action_name, params: a.params }] });
    expect(missingReceipt.isError).toBe(true);
  });

  it("refuses approvals over the agent socket, mutating actions as direct queries, and bad tcp tokens", async () => {
    const step = await planOne("WriteFile", { path: join(work, "c.txt"), content: "c\n" });
    expect(await rawIpc(daemon.agentSocket, "approve", { transaction_id: step.transaction_id })).toMatchObject({ ok: false, error: { code: "forbidden_method" } });
    const q = await rawIpc(daemon.agentSocket, "query", { action: "RestartService", args: { unit: "hg-sleep.service" } });
    expect(q).toMatchObject({ ok: true, result: { ok: false, error: { code: "not_read_only" } } });
    await expect(client.callTool({ name: "restart_service", arguments: { unit: "hg-sleep.service" } })).rejects.toThrow(/Unknown tool/);
    const tcp = daemon.addresses.find((a) => a.startsWith("tcp://"))!;
    expect(await rawIpc(tcp, "describe", {}, "wrong-token")).toMatchObject({ ok: false, error: { code: "unauthorized" } });
    expect(await rawIpc(tcp, "describe", {}, TOKEN)).toMatchObject({ ok: true });
  });

  it("runs exactly one of 200 concurrent executes that share one receipt", async () => {
    const target = join(work, "counter");
    const step = await planOne("WriteFile", { path: target, content: "once\n" });
    const receipt = await approved(step);
    const call = { steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params, approval_receipt: receipt }] };
    const results = await Promise.all(Array.from({ length: 200 }, () => rawIpc(daemon.agentSocket, "execute", call)));
    const statuses = results.map((r) => ((r.result as { value: { results: Json[] } }).value.results[0]!.status as string));
    expect(statuses.filter((s) => s === "succeeded")).toHaveLength(1);
    expect(statuses.filter((s) => s === "refused")).toHaveLength(199);
  });

  it("marks a step unknown when the daemon is SIGKILLed mid-step, and never re-runs it", async () => {
    const step = await planOne("RestartService", { unit: "hg-slow.service" });
    const receipt = await approved(step);
    const pending = executeStep(step, receipt).catch((e: unknown) => e);
    // Poll until the stop job runs (hg-slow takes 4 s to stop), then kill the daemon mid-step.
    const m = new DbusUnitManager({ busAddress: peer.busAddress, ref: { scope: "system" } });
    try {
      for (const end = Date.now() + 30_000; (await m.getUnit("hg-slow.service")).active_state !== "deactivating";) {
        if (Date.now() > end) throw new Error("hg-slow.service never started stopping");
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await m.close();
    }
    await daemon.stop("SIGKILL");
    await pending;
    daemon = await startDaemon(config(peer.busAddress), { dir: daemon.dir });
    const history = await tool("history", { status: "unknown" });
    expect((history.value.entries as Json[]).map((e) => e.transaction_id)).toContain(step.transaction_id);
    const retry = await executeStep(step, receipt);
    expect(firstResult(retry)).toMatchObject({ status: "refused" });
    expect(["receipt_used", "transaction_closed"]).toContain((firstResult(retry).error as Json).code);
    const doctor = await tool("doctor", {});
    expect(JSON.stringify(doctor.value)).toContain("unknown outcome");
  });
});

describe.skipIf(missing !== null)("hostgate approve at the terminal", () => {
  it("does not approve when the human types something else, and refuses without a terminal", async () => {
    // Planner and approver are both root here: same-user approval must be allowed to reach the prompt.
    const d = await startDaemon("backend:\n  type: mock\napproval:\n  same_user: allow\n");
    const c = await connectStdio("legacy", ["--config", d.configPath], { HOSTGATE_SOCKET: d.agentSocket });
    try {
      const plan = await c.callTool({ name: "plan", arguments: { steps: [{ action: "WriteFile", params: { path: join(work, "never"), content: "x" } }] } });
      const txid = ((plan.structuredContent as { steps: Json[] }).steps[0]!.transaction_id) as string;
      const declined = await approveViaPty(d.adminSocket, txid, "yes");
      expect(declined.receipt).toBeNull();
      expect(declined.output).toContain("Not approved");
      expect(declined.output).toContain("HIGH");
      const { runHostgate } = await import("../helpers/hostgate.ts");
      const piped = await runHostgate(["approve", txid, "--socket", d.adminSocket], { input: "yes\n" });
      expect(piped.code).toBe(2);
      expect(piped.stderr).toContain("needs a terminal");
    } finally {
      await c.close();
      await d.stop();
    }
  });
});
