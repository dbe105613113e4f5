/**
 * Issue 22, approval ergonomics: one approval and one receipt per plan, each step still bound by its own
 * preview_hash. Attacked as a model that may call plan / execute / history as often as it likes: the receipt
 * opens each step of its plan exactly once (sequential and concurrent replays), only in plan order, never after
 * an earlier step failed, never a step of another plan; approve binds exactly the steps and hashes shown and
 * moves all steps or none; one audit entry lists every step. In-process daemon (composeDaemon) on real SQLite and
 * a real audit chain in a temp state dir, WriteFile steps on real files, an injected clock.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../src/adapters/sqlite-migrate.ts";
import { STATE_MIGRATIONS } from "../../src/adapters/state-migrations/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { PLAN_TTL_MS, RECEIPT_TTL_MS, type Transaction } from "../../src/core/transaction/transaction.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import type { PlanResult, StepResult } from "../../src/ipc/protocol.ts";
import { testApprover } from "../support/approver.ts";

const work = mkdtempSync(join(tmpdir(), `hg-plan-receipt-${process.pid}-`));
afterAll(() => { rmSync(work, { recursive: true, force: true }); });
const config = ConfigSchema.parse({ backend: { type: "mock" } });
let now = Date.parse("2026-12-01T10:00:00Z");
const clock = { now: () => now };

async function daemon(stateDir: string): Promise<ComposedDaemon> {
  process.env.HOSTGATE_STATE_DIR = stateDir;
  const d = await composeDaemon(config, { mode: "embedded", clock, announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
  return d;
}

let d: ComposedDaemon;
beforeAll(async () => { d = await daemon(join(work, "state")); });
afterAll(async () => { await d.close(); });

let n = 0;
/** Plans `count` WriteFile steps (files under a fresh directory) as one plan. */
async function planWrites(count: number): Promise<{ plan: PlanResult; dir: string; files: string[] }> {
  const dir = mkdtempSync(join(work, `p${++n}-`));
  const files = Array.from({ length: count }, (_, i) => join(dir, `f${i + 1}`));
  const p = await d.service.agent("model").call("plan", { steps: files.map((f, i) => ({ action: "WriteFile", params: { path: f, content: `step ${i + 1}\n` } })) });
  if (!p.ok) throw new Error(p.error.message);
  return { plan: p.value, dir, files };
}

async function approvePlan(plan: PlanResult): Promise<string> {
  const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: plan.plan_id, steps: plan.steps.map((s) => ({ transaction_id: s.transaction_id, preview_hash: s.preview_hash })) });
  if (!a.ok) throw new Error(a.error.message);
  return a.value.receipt;
}

/** The execute steps for `indexes` (0-based) of a plan, each carrying `receipt` unless it is undefined. */
const stepsOf = (plan: PlanResult, indexes: number[], receipt?: string) => indexes.map((i) => {
  const s = plan.steps[i]!;
  return { transaction_id: s.transaction_id, action_name: s.action_name, params: s.params, ...(receipt === undefined ? {} : { approval_receipt: receipt }) };
});

async function run(steps: ReturnType<typeof stepsOf>, topLevel?: string): Promise<StepResult[]> {
  const r = await d.service.agent("model").call("execute", { steps, ...(topLevel === undefined ? {} : { approval_receipt: topLevel }) });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.results;
}

const read = (f: string): string | null => { try { return readFileSync(f, "utf8"); } catch { return null; } };
const stateOf = (id: string): string => d.openStores().transactions.get(id)!.state;
/** How many times the daemon started applying transaction `id` (its durable execute.intent entries). */
const intents = (id: string): number => d.openStores().audit.query({ limit: 100_000 }).filter((e) => e.kind === "execute.intent" && (JSON.parse(e.payload) as { transaction_id?: string }).transaction_id === id).length;

describe("one approval, one receipt, every step (issue 22)", () => {
  it("T22-plan-one-receipt: a 3-step plan approved once runs all 3 steps with the one receipt, in one call", async () => {
    const { plan, files } = await planWrites(3);
    expect(plan.plan_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(plan.next).toContain(`hostgate approve ${plan.plan_id}`);
    expect(plan.next).toContain("one approval covers all 3 steps");
    const receipt = await approvePlan(plan);
    const results = await run(stepsOf(plan, [0, 1, 2], receipt));
    expect(results.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect(files.map(read)).toEqual(["step 1\n", "step 2\n", "step 3\n"]);
  });

  it("T22-plan-top-level-receipt: the receipt given once at the top level runs every step that omits it, across calls", async () => {
    const { plan, files } = await planWrites(2);
    const receipt = await approvePlan(plan);
    expect((await run(stepsOf(plan, [0]), receipt)).map((r) => r.status)).toEqual(["succeeded"]);
    expect((await run(stepsOf(plan, [1]), receipt)).map((r) => r.status)).toEqual(["succeeded"]);
    expect(files.map(read)).toEqual(["step 1\n", "step 2\n"]);
  });

  it("T22-plan-no-replay: the same call twice runs nothing the second time (receipt_used on the first step, the rest skipped)", async () => {
    const { plan, files } = await planWrites(3);
    const receipt = await approvePlan(plan);
    expect((await run(stepsOf(plan, [0, 1, 2], receipt))).map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    writeFileSync(files[0]!, "changed by someone\n");
    const again = await run(stepsOf(plan, [0, 1, 2], receipt));
    expect(again.map((r) => r.status)).toEqual(["refused", "skipped", "skipped"]);
    expect(again[0]!.error?.code).toBe("receipt_used");
    // Each step alone: the receipt already opened it.
    for (const i of [1, 2]) expect((await run(stepsOf(plan, [i], receipt)))[0]!.error?.code).toBe("receipt_used");
    expect(read(files[0]!)).toBe("changed by someone\n");
    for (const s of plan.steps) expect(intents(s.transaction_id)).toBe(1);
  });

  it("T22-plan-concurrent: six concurrent executes of the whole plan run each step exactly once", async () => {
    const { plan, files } = await planWrites(3);
    const receipt = await approvePlan(plan);
    const all = await Promise.all(Array.from({ length: 6 }, () => run(stepsOf(plan, [0, 1, 2], receipt))));
    for (const s of plan.steps) {
      expect(all.flat().filter((r) => r.transaction_id === s.transaction_id && r.status === "succeeded")).toHaveLength(1);
      expect(intents(s.transaction_id)).toBe(1);
      expect(stateOf(s.transaction_id)).toBe("succeeded");
    }
    expect(files.map(read)).toEqual(["step 1\n", "step 2\n", "step 3\n"]);
  });

  it("T22-plan-concurrent-steps: concurrent executes of different steps of one plan run them only in plan order", async () => {
    const { plan, files } = await planWrites(3);
    const receipt = await approvePlan(plan);
    // Step 3, step 2 and step 1 sent at once, each in its own call: only step 1 may run.
    const [third, second, first] = await Promise.all([run(stepsOf(plan, [2], receipt)), run(stepsOf(plan, [1], receipt)), run(stepsOf(plan, [0], receipt))]);
    expect(first[0]!.status).toBe("succeeded");
    expect([second[0]!.error?.code, third[0]!.error?.code]).toEqual(["out_of_order", "out_of_order"]);
    expect(files.map(read)).toEqual(["step 1\n", null, null]);
  });
});

describe("plan order", () => {
  it("T22-plan-order: a later step sent before an earlier one is refused out_of_order and stays runnable in order", async () => {
    const { plan, files } = await planWrites(3);
    const receipt = await approvePlan(plan);
    const third = await run(stepsOf(plan, [2], receipt));
    expect(third[0]!.error).toMatchObject({ code: "out_of_order", message: expect.stringContaining(`runs only after step 1 (transaction ${plan.steps[0]!.transaction_id}, WriteFile), which is approved`) as string });
    const reversed = await run(stepsOf(plan, [2, 1, 0], receipt));
    expect(reversed.map((r) => r.status)).toEqual(["refused", "skipped", "skipped"]);
    expect(files.map(read)).toEqual([null, null, null]);
    expect((await run(stepsOf(plan, [0, 1], receipt))).map((r) => r.status)).toEqual(["succeeded", "succeeded"]);
    expect((await run(stepsOf(plan, [2], receipt)))[0]!.status).toBe("succeeded");
    expect(files.map(read)).toEqual(["step 1\n", "step 2\n", "step 3\n"]);
  });

  it("T22-plan-halted: step 2 failing (its file changed after approval: plan_changed) makes step 3 unrunnable with that receipt, forever", async () => {
    const { plan, files } = await planWrites(3);
    const receipt = await approvePlan(plan);
    writeFileSync(files[1]!, "someone else was here\n");
    const r = await run(stepsOf(plan, [0, 1, 2], receipt));
    expect(r.map((x) => x.status)).toEqual(["succeeded", "refused", "skipped"]);
    expect(r[1]!.error?.code).toBe("plan_changed");
    expect(stateOf(plan.steps[1]!.transaction_id)).toBe("failed");
    for (let attempt = 0; attempt < 2; attempt++) {
      now += 60_000;
      const later = await run(stepsOf(plan, [2], receipt));
      expect(later[0]!.error).toMatchObject({ code: "plan_halted", message: expect.stringContaining(`halted at step 2 (transaction ${plan.steps[1]!.transaction_id}, WriteFile), which failed`) as string });
      expect(later[0]!.error?.details).toMatchObject({ stopped_at: plan.steps[1]!.transaction_id });
    }
    expect(stateOf(plan.steps[2]!.transaction_id)).toBe("approved");
    expect(read(files[2]!)).toBeNull();
  });

  it("T22-plan-expired-midway: once the receipt expires, the steps not yet run never run", async () => {
    const { plan, files } = await planWrites(2);
    const receipt = await approvePlan(plan);
    expect((await run(stepsOf(plan, [0], receipt)))[0]!.status).toBe("succeeded");
    now += RECEIPT_TTL_MS;
    expect((await run(stepsOf(plan, [1], receipt)))[0]!.error?.code).toBe("receipt_expired");
    expect(read(files[1]!)).toBeNull();
  });
});

describe("a receipt is bound to its plan", () => {
  it("T22-plan-other-receipt: plan A's receipt never opens a step of plan B, and B's own receipt still does", async () => {
    const a = await planWrites(1);
    const b = await planWrites(2);
    const receiptA = await approvePlan(a.plan);
    const receiptB = await approvePlan(b.plan);
    const wrong = await run(stepsOf(b.plan, [0, 1], receiptA));
    expect(wrong[0]!.error).toMatchObject({ code: "receipt_for_other_transaction", message: expect.stringContaining(`minted for plan ${a.plan.plan_id}`) as string });
    // A's receipt on B's first step, B's own on its second: the first is refused and nothing runs.
    const mixed = await run([...stepsOf(b.plan, [0], receiptA), ...stepsOf(b.plan, [1], receiptB)]);
    expect(mixed.map((x) => x.status)).toEqual(["refused", "skipped"]);
    // A step-level receipt wins over the top-level one: B's steps with A's receipt on the step stay refused.
    expect((await run(stepsOf(b.plan, [0], receiptA), receiptB))[0]!.error?.code).toBe("receipt_for_other_transaction");
    expect(b.files.map(read)).toEqual([null, null]);
    expect((await run(stepsOf(b.plan, [0, 1], receiptB))).map((x) => x.status)).toEqual(["succeeded", "succeeded"]);
    // And A's receipt still opens A's step.
    expect((await run(stepsOf(a.plan, [0], receiptA)))[0]!.status).toBe("succeeded");
    expect(read(a.files[0]!)).toBe("step 1\n");
  });

  it("T22-plan-unapproved: a receipt minted for nothing is receipt_mismatch; an unapproved plan's step is not_approved naming the plan", async () => {
    const { plan } = await planWrites(1);
    const forged = `hgr_${"B".repeat(43)}`;
    expect((await run(stepsOf(plan, [0], forged)))[0]!.error).toMatchObject({ code: "not_approved", hint: expect.stringContaining(`hostgate approve ${plan.plan_id}`) as string });
    await approvePlan(plan);
    expect((await run(stepsOf(plan, [0], forged)))[0]!.error?.code).toBe("receipt_mismatch");
  });
});

describe("approve binds the exact steps shown, all or none", () => {
  const shown = (plan: PlanResult) => plan.steps.map((s) => ({ transaction_id: s.transaction_id, preview_hash: s.preview_hash }));
  const approveWith = (id: string, steps: { transaction_id: string; preview_hash: string }[]) => d.service.admin("human", testApprover()).call("approve", { transaction_id: id, steps });

  it("T22-approve-binding: a stale hash, a short list, an extra step or another order is plan_changed and approves nothing", async () => {
    const { plan } = await planWrites(3);
    const other = await planWrites(1);
    const list = shown(plan);
    const attempts = [
      list.map((s, i) => (i === 1 ? { ...s, preview_hash: "0".repeat(64) } : s)),
      list.slice(0, 2),
      [...list, ...shown(other.plan)],
      [list[1]!, list[0]!, list[2]!],
    ];
    for (const steps of attempts) {
      const r = await approveWith(plan.plan_id, steps);
      expect(r.ok ? null : r.error.code).toBe("plan_changed");
    }
    for (const s of plan.steps) expect(stateOf(s.transaction_id)).toBe("planned");
    // Named by any of its transaction ids, with the list shown: approved, all steps at once.
    const ok = await approveWith(plan.steps[2]!.transaction_id, list);
    expect(ok.ok && ok.value.plan_id).toBe(plan.plan_id);
    expect(ok.ok && ok.value.steps).toEqual(list);
    for (const s of plan.steps) expect(stateOf(s.transaction_id)).toBe("approved");
    const again = await approveWith(plan.plan_id, list);
    expect(again.ok ? null : again.error.code).toBe("transaction_closed");
  });

  it("T22-approve-closed-step: one step expired makes approve refuse, naming it, and leaves the other steps planned", async () => {
    const { plan } = await planWrites(3);
    d.openStores().transactions.expire(plan.steps[1]!.transaction_id, now);
    const shownPlan = await d.service.admin("human", testApprover()).call("show", { transaction_id: plan.plan_id });
    expect(shownPlan.ok && shownPlan.value.steps.map((s) => s.state)).toEqual(["planned", "expired", "planned"]);
    const r = await approveWith(plan.plan_id, shown(plan));
    expect(r.ok ? null : r.error).toMatchObject({ code: "transaction_closed", message: expect.stringContaining(`Step 2 of plan ${plan.plan_id} (transaction ${plan.steps[1]!.transaction_id}, WriteFile) is expired`) as string });
    expect(plan.steps.map((s) => stateOf(s.transaction_id))).toEqual(["planned", "expired", "planned"]);
  });

  it("T22-approve-atomic: the store's CAS moves no step when one of them is no longer planned", async () => {
    const store = d.openStores().transactions;
    const base = store.get((await planWrites(1)).plan.steps[0]!.transaction_id)!;
    const planId = "11111111-2222-4333-8444-555555555555";
    const rows: Transaction[] = [1, 2, 3].map((seq) => ({ ...base, id: `${planId.slice(0, 24)}00000000000${seq}`, plan_id: planId, plan_seq: seq, state: "planned", plan_expires_at: now + PLAN_TTL_MS, approved_at: null, approved_by: null, receipt_expires_at: null, separation: null }));
    for (const r of rows) store.insert(r);
    store.expire(rows[2]!.id, now);
    const list = rows.map((r) => ({ transaction_id: r.id, preview_hash: r.preview_hash }));
    expect(store.approvePlan(planId, list, "f".repeat(64), "human", now, now + RECEIPT_TTL_MS, "none")).toBe(false);
    expect(rows.map((r) => store.get(r.id)!.state)).toEqual(["planned", "planned", "expired"]);
    expect(store.findByReceiptHash("f".repeat(64))).toEqual([]);
  });

  it("T22-reject-plan: reject by any transaction id rejects every planned step of the plan", async () => {
    const { plan } = await planWrites(2);
    const r = await d.service.admin("human", testApprover()).call("reject", { transaction_id: plan.steps[1]!.transaction_id });
    expect(r.ok && r.value).toEqual({ plan_id: plan.plan_id, transaction_ids: plan.steps.map((s) => s.transaction_id), state: "rejected" });
    expect(plan.steps.map((s) => stateOf(s.transaction_id))).toEqual(["rejected", "rejected"]);
    const again = await d.service.admin("human", testApprover()).call("reject", { transaction_id: plan.plan_id });
    expect(again.ok ? null : again.error.code).toBe("transaction_closed");
  });

  it("T22-audit-approve: one approve entry lists every step and its preview_hash, and the pending list shows the plan once", async () => {
    const { plan } = await planWrites(3);
    const pend = await d.service.admin("human", testApprover()).call("pending", {});
    const listed = pend.ok ? pend.value.plans.filter((p) => p.plan_id === plan.plan_id) : [];
    expect(listed).toHaveLength(1);
    expect(listed[0]!.steps.map((s) => s.transaction_id)).toEqual(plan.steps.map((s) => s.transaction_id));
    expect(listed[0]!.risk_level).toBe("high");
    await approvePlan(plan);
    const entries = d.openStores().audit.query({ limit: 100_000 }).filter((e) => e.kind === "approve" && (JSON.parse(e.payload) as { plan_id?: string }).plan_id === plan.plan_id);
    expect(entries).toHaveLength(1);
    const payload = JSON.parse(entries[0]!.payload) as { transaction_ids: string[]; steps: { transaction_id: string; seq: number; preview_hash: string }[] };
    expect(payload.transaction_ids).toEqual(plan.steps.map((s) => s.transaction_id));
    expect(payload.steps.map((s) => [s.transaction_id, s.seq, s.preview_hash])).toEqual(plan.steps.map((s, i) => [s.transaction_id, i + 1, s.preview_hash]));
  });
});

describe("a state database of version 4 (before plans)", () => {
  it("T22-migrate-v4: its transactions become plans of one: an approved one runs with its own receipt, a planned one is approved and run", async () => {
    // Two real WriteFile transactions, planned by this hostgate, written into a v4 database as v4 wrote them.
    const a = await planWrites(1);
    const b = await planWrites(1);
    const txs = [a, b].map((x) => d.openStores().transactions.get(x.plan.steps[0]!.transaction_id)!);
    const dir = join(work, "v4-state");
    mkdirSync(dir);
    const db = new Database(join(dir, "state.db"));
    migrate(db, STATE_MIGRATIONS.slice(0, 4), "v4");
    const oldReceipt = `hgr_${"C".repeat(43)}`;
    const insert = db.prepare(`INSERT INTO transactions (id, action_name, host, params, risk_level, preview, preview_hash, preview_salt, state, actor, created_at, updated_at, plan_expires_at, planner, intent,
      approved_at, approved_by, receipt_hash, receipt_expires_at, separation) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const row = (tx: Transaction, approved: boolean) => insert.run(tx.id, tx.action_name, tx.host, JSON.stringify(tx.params), tx.risk_level, JSON.stringify(tx.preview), tx.preview_hash, tx.preview_salt, approved ? "approved" : "planned", tx.actor,
      tx.created_at, tx.created_at, tx.plan_expires_at, tx.planner, tx.intent, approved ? now : null, approved ? "human" : null, approved ? createHash("sha256").update(oldReceipt).digest("hex") : null, approved ? now + RECEIPT_TTL_MS : null, approved ? "none" : null);
    row(txs[0]!, true);
    row(txs[1]!, false);
    db.close();
    const old = await daemon(dir);
    try {
      const agent = old.service.agent("model");
      const ran = await agent.call("execute", { steps: [{ transaction_id: txs[0]!.id, action_name: "WriteFile", params: txs[0]!.params, approval_receipt: oldReceipt }] });
      expect(ran.ok && ran.value.results[0]!.status).toBe("succeeded");
      expect(read(a.files[0]!)).toBe("step 1\n");
      const shownB = await old.service.admin("human", testApprover()).call("show", { transaction_id: txs[1]!.id });
      expect(shownB.ok && shownB.value).toMatchObject({ plan_id: txs[1]!.id, steps: [{ transaction_id: txs[1]!.id, seq: 1, state: "planned" }] });
      const approved = await old.service.admin("human", testApprover()).call("approve", { transaction_id: txs[1]!.id, steps: [{ transaction_id: txs[1]!.id, preview_hash: txs[1]!.preview_hash }] });
      if (!approved.ok) throw new Error(approved.error.message);
      const ranB = await agent.call("execute", { steps: [{ transaction_id: txs[1]!.id, action_name: "WriteFile", params: txs[1]!.params, approval_receipt: approved.value.receipt }] });
      expect(ranB.ok && ranB.value.results[0]!.status).toBe("succeeded");
      expect(read(b.files[0]!)).toBe("step 1\n");
    } finally {
      await old.close();
    }
  });
});
