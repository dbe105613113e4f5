/**
 * Issue 22, approval ergonomics, through the real CLI (test/helpers/hostgate.ts) and real daemons: `hostgate
 * pending` has a CLIENT column and works from the state directory when no front runs; `hostgate approve` refuses a
 * transaction that is not planned before printing any review screen, saying what to do; the approve screen labels
 * the action's risk (and, for a command, the command's: src/cli/approve.test.ts); one approve shows every step of a plan and
 * prints one receipt that runs them all.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveViaPty, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN, connectHttp, connectStdio, runHostgate, runHostgateInPty, startServe } from "../helpers/hostgate.ts";

type Planned = { plan_id?: string; steps?: { transaction_id: string }[] };
const work = mkdtempSync(join(tmpdir(), `hg-approval-ux-${process.pid}-`));
afterAll(() => { rmSync(work, { recursive: true, force: true }); });

/** Plans one WriteFile; returns its transaction id and its plan id. */
async function planWrite(c: Client, name: string): Promise<{ txid: string; planId: string }> {
  const r = await c.callTool({ name: "plan", arguments: { steps: [{ action: "WriteFile", params: { path: join(work, name), content: "x\n" } }] } });
  const planned = r.structuredContent as Planned | undefined;
  if (!planned?.steps || !planned.plan_id) throw new Error(`plan failed: ${JSON.stringify(r.content)}`);
  return { txid: planned.steps[0]!.transaction_id, planId: planned.plan_id };
}

describe("against a running daemon", () => {
  let d: DaemonProcess;
  let c: Client;
  beforeAll(async () => {
    d = await startDaemon("backend:\n  type: mock\napproval:\n  same_user: allow\n");
    c = await connectStdio("legacy", ["--config", d.configPath], { HOSTGATE_SOCKET: d.agentSocket });
  });
  afterAll(async () => { await c.close(); await d.stop(); rmSync(d.dir, { recursive: true, force: true }); });

  it("T22-pending-client: pending lists the planning client's name in a CLIENT column", async () => {
    const { planId } = await planWrite(c, "client-col");
    const r = await runHostgate(["pending", "--socket", d.adminSocket], { env: d.env });
    expect(r.code, r.stderr).toBe(0);
    const [head, ...rows] = r.stdout.split("\n");
    expect(head).toMatch(/^PLAN\s+AGE\s+RISK\s+HOST\s+CLIENT\s+STEPS\s+SUMMARY$/);
    const row = rows.find((l) => l.startsWith(planId));
    expect(row).toMatch(/\s+HIGH\s+local\s+hostgate-e2e\s+1\s+WriteFile: /);
  });

  it("T22-approve-state: a rejected transaction is refused before any review screen, saying what to do", async () => {
    const { txid } = await planWrite(c, "rejected");
    const rej = await runHostgate(["reject", txid, "--socket", d.adminSocket], { env: d.env });
    expect(rej.code, rej.stderr).toBe(0);
    const r = await runHostgateInPty(["approve", txid, "--socket", d.adminSocket], { env: d.env });
    expect(r.code).toBe(1);
    expect(r.output).toContain(`cannot approve: ${txid} was rejected. Ask the assistant to plan the change again`);
    expect(r.output).not.toMatch(/Transaction {2}|Preview hash|Type "/);
  });

  it("T22-approve-risk: the approve screen labels the action's risk level", async () => {
    const { txid } = await planWrite(c, "labelled");
    const r = await runHostgateInPty(["approve", txid, "--socket", d.adminSocket], { env: d.env, input: "no\n" });
    expect(r.output).toContain("Risk         HIGH (the step's; it sets what you must type)");
    expect(r.output).toContain("Action risk  HIGH (the catalogue's level for WriteFile)");
    expect(r.output).toContain("Not approved");
  });

  it("T22-approve-plan-cli: one hostgate approve shows all 3 steps of a plan and its one receipt runs them all through the MCP execute tool", async () => {
    const files = ["one", "two", "three"].map((f) => join(work, `plan-${f}`));
    const p = await c.callTool({ name: "plan", arguments: { steps: files.map((f, i) => ({ action: "WriteFile", params: { path: f, content: `${i + 1}\n` } })) } });
    const planned = p.structuredContent as { plan_id: string; steps: { transaction_id: string; action_name: string; params: Record<string, unknown>; preview_hash: string }[] };
    const r = await approveViaPty(d.adminSocket, planned.plan_id);
    for (const [i, s] of planned.steps.entries()) {
      expect(r.output).toContain(`── Step ${i + 1} of 3 ──\r\nTransaction  ${s.transaction_id}`);
      expect(r.output).toContain(`Preview hash ${s.preview_hash}`);
      expect(r.output).toContain(`"path":"${files[i]!}"`);
    }
    expect(r.output).toContain(`Type "${planned.plan_id.slice(0, 8)}" to approve`);
    expect(r.output.match(/to approve, anything else/g)).toHaveLength(1);
    expect(r.receipt, r.output).not.toBeNull();
    const x = await c.callTool({ name: "execute", arguments: { approval_receipt: r.receipt, steps: planned.steps.map((s) => ({ transaction_id: s.transaction_id, action_name: s.action_name, params: s.params })) } });
    expect((x.structuredContent as { results: { status: string }[] }).results.map((s) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(files.map((f) => readFileSync(f, "utf8"))).toEqual(["1\n", "2\n", "3\n"]);
  });

  it("T23-show-cli: hostgate show <txid> gives one transaction's preview, state, approval and outcome (--json: the actor an object); pending --json too; history shows the approval on every step", async () => {
    const files = ["a", "b"].map((f) => join(work, `show-${f}`));
    const p = await c.callTool({ name: "plan", arguments: { steps: files.map((f, i) => ({ action: "WriteFile", params: { path: f, content: `${i}\n` } })) } });
    const planned = p.structuredContent as { plan_id: string; steps: { transaction_id: string; action_name: string; params: Record<string, unknown> }[] };
    const second = planned.steps[1]!.transaction_id;
    const pend = await runHostgate(["pending", "--json", "--socket", d.adminSocket], { env: d.env });
    const plan = (JSON.parse(pend.stdout) as { plans: { plan_id: string; actor: unknown }[] }).plans.find((x) => x.plan_id === planned.plan_id);
    expect(plan?.actor).toMatchObject({ client: "hostgate-e2e", socket: "agent", uid: process.getuid!() });
    const before = await runHostgate(["show", second, "--json", "--socket", d.adminSocket], { env: d.env });
    expect(before.code, before.stderr).toBe(0);
    const b = JSON.parse(before.stdout) as { actor: unknown; steps: { transaction_id: string; state: string; approval: unknown; outcome: unknown }[] };
    expect(b.actor).toMatchObject({ client: "hostgate-e2e", uid: process.getuid!() });
    expect(b.steps.map((s) => [s.transaction_id, s.state, s.approval, s.outcome])).toEqual([[second, "planned", null, null]]);
    const r = await approveViaPty(d.adminSocket, planned.plan_id);
    expect(r.receipt, r.output).not.toBeNull();
    await c.callTool({ name: "execute", arguments: { approval_receipt: r.receipt, steps: planned.steps.map((s) => ({ transaction_id: s.transaction_id, action_name: s.action_name, params: s.params })) } });
    const after = JSON.parse((await runHostgate(["show", second, "--json", "--socket", d.adminSocket], { env: d.env })).stdout) as { steps: { state: string; approval: { approved_by: unknown; method: string; separation: string }; outcome: { error: unknown } }[] };
    expect(after.steps).toHaveLength(1);
    expect(after.steps[0]).toMatchObject({ state: "succeeded", approval: { approved_by: { socket: "admin", uid: process.getuid!() }, method: "same-user", separation: "none" }, outcome: { error: null } });
    const text = await runHostgate(["show", second, "--socket", d.adminSocket], { env: d.env });
    expect(text.stdout).toContain(`Transaction  ${second} (step 2 of 2 of plan ${planned.plan_id})`);
    expect(text.stdout).toMatch(/\nState {8}succeeded\nApproval {5}\S+ by uid \d+, admin socket, \S+ \(same-user\); separation none\nOutcome {6}succeeded\n/);
    expect(text.stdout).toContain(files[1]!);
    const missing = await runHostgate(["show", "00000000-0000-4000-8000-000000000000", "--socket", d.adminSocket], { env: d.env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No plan or transaction id starts with 00000000-0000-4000-8000-000000000000\.\nRun `hostgate pending`[^\n]*\nAsked the daemon at /);
    const h = await c.callTool({ name: "history", arguments: { limit: 50 } });
    const approvals = (h.structuredContent as { entries: { kind: string; transaction_id: string | null; action: string | null; approval: unknown }[] }).entries.filter((e) => e.kind === "approve" && planned.steps.some((s) => s.transaction_id === e.transaction_id));
    expect(approvals.map((e) => e.transaction_id).sort()).toEqual(planned.steps.map((s) => s.transaction_id).sort());
    for (const e of approvals) expect(e).toMatchObject({ action: "WriteFile", approval: { method: "same-user" } });
  });
});

describe("with no daemon running", () => {
  it("T22-pending-offline: pending reads the state directory a front left, says so, and starts nothing", async () => {
    const home = join(work, "home");
    mkdirSync(join(home, "run"), { recursive: true, mode: 0o700 });
    const cfg = join(home, "config.yaml");
    writeFileSync(cfg, "backend:\n  type: mock\n");
    // Runtime dir of our own: no system daemon of this machine can be found (hermetic), HOSTGATE_SOCKET unset.
    const env = { HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_RUNTIME_DIR: join(home, "run"), HOSTGATE_RUNTIME_DIR: join(home, "run", "hostgate"), HOSTGATE_SOCKET: "", HOSTGATE_STATE_DIR: "", HOSTGATE_ADMIN_SOCKET: "" };
    const empty = await runHostgate(["pending", "-c", cfg], { env });
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toBe("No plans are waiting for approval.\n");
    const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp", "-c", cfg], env: { ...process.env, ...env }, stderr: "pipe" });
    const client = new Client({ name: "offline-planner", version: "1.0.0" });
    await client.connect(transport);
    const { txid, planId } = await planWrite(client, "offline");
    await client.close();
    const r = await runHostgate(["pending", "-c", cfg], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`no daemon answers at \\S+agent\\.sock; read ${join(home, "state", "hostgate", "state.db").replace(/[.]/g, "\\.")}`));
    expect(r.stdout).toMatch(new RegExp(`^${planId}\\s+\\S+\\s+HIGH\\s+local\\s+offline-planner\\s+1\\s+WriteFile`, "m"));
    const json = await runHostgate(["pending", "-c", cfg, "--json"], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ plans: [{ plan_id: planId, steps: [{ transaction_id: txid, action_name: "WriteFile" }] }] });
    // Nothing was started: no socket answers in the runtime directory afterwards.
    const after = await runHostgate(["pending", "-c", cfg], { env });
    expect(after.stderr).toContain("no daemon answers at");
  }, 120_000);
});

describe("the SDK client over Streamable HTTP", () => {
  it("T22-clients-plan-http: lists plan with a flat inputSchema and plans a change, which pending lists with its client", async () => {
    const home = join(work, "http");
    mkdirSync(join(home, "run"), { recursive: true, mode: 0o700 });
    const cfg = join(home, "config.yaml");
    writeFileSync(cfg, "backend:\n  type: mock\n");
    const env = { HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_RUNTIME_DIR: join(home, "run"), HOSTGATE_RUNTIME_DIR: join(home, "run", "hostgate"), HOSTGATE_SOCKET: "", HOSTGATE_STATE_DIR: "", HOSTGATE_ADMIN_SOCKET: "" };
    const serve = await startServe(["-c", cfg], env);
    try {
      const c = await connectHttp(serve.url, "modern");
      try {
        const plan = (await c.listTools()).tools.find((t) => t.name === "plan");
        expect(plan?.inputSchema.type).toBe("object");
        for (const k of ["oneOf", "anyOf", "allOf"]) expect(plan?.inputSchema).not.toHaveProperty(k);
        const { planId } = await planWrite(c, "over-http");
        const r = await runHostgate(["pending", "-c", cfg], { env });
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^${planId}\\s+\\S+\\s+HIGH\\s+local\\s+hostgate-e2e\\s+1\\s+WriteFile`, "m"));
      } finally { await c.close(); }
    } finally { await serve.stop(); }
  }, 120_000);
});
