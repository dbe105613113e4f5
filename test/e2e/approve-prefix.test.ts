/**
 * `hostgate approve <prefix>` (newcomer report): a unique prefix of at least 8 characters of a plan id or a
 * transaction id names a plan, like git's short commit ids; ambiguous, unknown and too short prefixes are clear errors pointing to
 * `hostgate pending`; the full id and the plan are shown before anything is approved, and the approval is for
 * the full id shown. In-process on real SQLite (crafted ids for the ambiguous case), then with the real CLI.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { approveViaPty, rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";
import { testApprover } from "../support/approver.ts";

const work = mkdtempSync(join(tmpdir(), `hg-prefix-polish-${process.pid}-`));

describe("resolving a typed prefix (daemon side)", () => {
  let d: ComposedDaemon;
  let planned: string;
  let planId: string;
  beforeAll(async () => {
    process.env.HOSTGATE_STATE_DIR = join(work, "state");
    d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { mode: "embedded", announce: () => undefined });
    delete process.env.HOSTGATE_STATE_DIR;
    const p = await d.service.agent("test").call("plan", { steps: [{ action: "WriteFile", params: { path: join(work, "x"), content: "x\n" } }] });
    if (!p.ok) throw new Error(p.error.message);
    planned = p.value.steps[0]!.transaction_id;
    planId = p.value.plan_id;
    // Two plans whose ids share their first 8 characters (uuids that collide there cannot be planned on purpose).
    const store = d.openStores().transactions;
    const tx = store.get(planned)!;
    for (const id of ["abcdef12-0000-4000-8000-000000000001", "abcdef12-0000-4000-8000-000000000002"]) store.insert({ ...tx, id, plan_id: id });
  });
  afterAll(async () => { await d.close(); });

  it("show takes a unique prefix of a transaction id or a plan id and answers with the full plan", async () => {
    const r = await d.service.admin("human", testApprover()).call("show", { transaction_id: planned.slice(0, 8) });
    expect(r.ok && r.value.plan_id).toBe(planId);
    expect(r.ok && r.value.steps.map((s) => s.transaction_id)).toEqual([planned]);
    const upper = await d.service.admin("human", testApprover()).call("show", { transaction_id: planned.slice(0, 13).toUpperCase() });
    expect(upper.ok && upper.value.steps[0]!.transaction_id).toBe(planned);
    const byPlan = await d.service.admin("human", testApprover()).call("show", { transaction_id: planId.slice(0, 8) });
    expect(byPlan.ok && byPlan.value.plan_id).toBe(planId);
  });

  it("an ambiguous prefix lists the matches and says what to do", async () => {
    const r = await d.service.admin("human", testApprover()).call("show", { transaction_id: "abcdef12" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("ambiguous_transaction");
    expect(r.error.message).toContain("abcdef12-0000-4000-8000-000000000001, abcdef12-0000-4000-8000-000000000002");
    expect(r.error.message).toContain("Type more characters");
    expect(r.error.hint).toContain("hostgate pending");
    const longer = await d.service.admin("human", testApprover()).call("show", { transaction_id: "abcdef12-0000-4000-8000-0000000000" });
    expect(longer.ok).toBe(false);
    const exact = await d.service.admin("human", testApprover()).call("show", { transaction_id: "abcdef12-0000-4000-8000-000000000002" });
    expect(exact.ok && exact.value.plan_id).toBe("abcdef12-0000-4000-8000-000000000002");
  });

  it("unknown and too short prefixes are refused, naming hostgate pending", async () => {
    const unknown = await d.service.admin("human", testApprover()).call("show", { transaction_id: "ffffffff" });
    expect(unknown.ok ? null : unknown.error).toMatchObject({ code: "unknown_transaction", hint: expect.stringContaining("hostgate pending") as string });
    const short = await d.service.admin("human", testApprover()).call("show", { transaction_id: planned.slice(0, 7) });
    expect(short.ok ? null : short.error).toMatchObject({ code: "invalid_params", message: expect.stringContaining("at least its first 8 characters") as string });
    const pattern = await d.service.admin("human", testApprover()).call("show", { transaction_id: "%%%%%%%%" });
    expect(pattern.ok ? null : pattern.error.code).toBe("unknown_transaction");
  });

  it("approve and reject themselves take only the full id the human was shown", async () => {
    const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: planned.slice(0, 8) });
    expect(a.ok ? null : a.error.code).toBe("unknown_transaction");
    const r = await d.service.admin("human", testApprover()).call("reject", { transaction_id: planned.slice(0, 8) });
    expect(r.ok ? null : r.error.code).toBe("unknown_transaction");
  });
});

describe("hostgate approve|reject <prefix> with the real CLI", () => {
  let daemon: DaemonProcess;
  beforeAll(async () => { daemon = await startDaemon("backend:\n  type: mock\napproval:\n  same_user: allow\n"); });
  afterAll(async () => { await daemon?.stop(); });

  const plan = async (name: string): Promise<{ transaction_id: string; action_name: string; params: Record<string, unknown> }> => {
    writeFileSync(join(work, name), "old\n");
    const r = await rawIpc(daemon.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path: join(work, name), content: "new\n" } }] });
    const s = (r.result as { value: { steps: { transaction_id: string; action_name: string; params: Record<string, unknown> }[] } }).value.steps[0]!;
    return { transaction_id: s.transaction_id, action_name: s.action_name, params: s.params };
  };

  it("approve shows the full id and the plan, and the receipt is for that transaction", async () => {
    const step = await plan("p.txt");
    const r = await approveViaPty(daemon.adminSocket, step.transaction_id.slice(0, 8));
    expect(r.output).toContain(`Transaction  ${step.transaction_id}`);
    expect(r.output).toContain("Action       WriteFile");
    expect(r.receipt, r.output).not.toBeNull();
    const done = await rawIpc(daemon.agentSocket, "execute", { steps: [{ ...step, approval_receipt: r.receipt }] });
    expect(((done.result as { value: { results: { status: string }[] } }).value.results[0]!.status)).toBe("succeeded");
    expect(readFileSync(join(work, "p.txt"), "utf8")).toBe("new\n");
  });

  it("an unknown prefix prints what to do and approves nothing", async () => {
    const r = await approveViaPty(daemon.adminSocket, "00000000");
    expect(r.receipt).toBeNull();
    expect(r.output).toContain("No plan or transaction id starts with 00000000");
    expect(r.output).toContain("hostgate pending");
  });

  it("reject takes a prefix and prints the full ids it rejected", async () => {
    const step = await plan("q.txt");
    const r = spawnSync(process.execPath, [HOSTGATE_BIN, "reject", step.transaction_id.slice(0, 10), "--socket", daemon.adminSocket], { encoding: "utf8", env: { ...process.env, ...daemon.env } });
    expect(r.stdout).toMatch(new RegExp(`^Rejected plan [0-9a-f-]{36} \\(1 step\\):\\n  ${step.transaction_id}  WriteFile on local`));
    expect(r.status).toBe(0);
  });
});
