/**
 * Issue 24, confirm-or-auto-revert ("commit confirmed"), driven by the daemon's clock port: an in-process daemon
 * (composeDaemon) on real SQLite and a real audit chain in a temp state dir; the revertable step is a fixture
 * action that changes a real file through the real HostMutator (capture / apply / restore), so the machinery is
 * tested without touching the host's network (the real actions run in a network namespace:
 * test/integration/network-actions.test.ts). Covers: the window in the preview, apply without confirm → restored
 * (`reverted`, audited), confirm in time keeps it, a daemon restarted inside the window restores at start-up, a
 * restore that fails leaves `unknown` (audited), confirm's refusals, a later plan step running while one waits.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { Action } from "../../src/core/catalogue/action.ts";
import { CATALOGUE } from "../../src/core/catalogue/index.ts";
import { revertDue } from "../../src/app/revert.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import type { PlanResult, StepResult } from "../../src/ipc/protocol.ts";
import { testApprover } from "../support/approver.ts";
import { setMarker } from "../support/set-marker.ts";

const work = mkdtempSync(join(tmpdir(), `hg-confirm-${process.pid}-`));
afterAll(() => { rmSync(work, { recursive: true, force: true }); });
let now = Date.parse("2026-12-02T10:00:00Z");
const clock = { now: () => now };

const catalogue: readonly Action[] = [...CATALOGUE, setMarker];

async function daemon(stateDir: string, window?: number): Promise<ComposedDaemon> {
  process.env.HOSTGATE_STATE_DIR = stateDir;
  const config = ConfigSchema.parse({ backend: { type: "mock" }, ...(window === undefined ? {} : { approval: { confirm_window_s: window } }) });
  const d = await composeDaemon(config, { mode: "embedded", clock, catalogue, announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
  await d.reverts;
  return d;
}

let n = 0;
/** Plans, approves and executes SetMarker steps on fresh files; returns the plan, the results and the files. */
async function applyMarkers(d: ComposedDaemon, steps: { value: string; before?: string; revert?: boolean }[]): Promise<{ plan: PlanResult; results: StepResult[]; files: string[] }> {
  const dir = join(work, `m${++n}`);
  mkdirSync(dir);
  const files = steps.map((s, i) => {
    const f = join(dir, `marker${i}`);
    if (s.before !== undefined) writeFileSync(f, s.before);
    return f;
  });
  const agent = d.service.agent("model");
  const p = await agent.call("plan", { steps: steps.map((s, i) => ({ action: "SetMarker", params: { path: files[i], value: s.value, ...(s.revert === undefined ? {} : { revert: s.revert }) } })) });
  if (!p.ok) throw new Error(p.error.message);
  const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: p.value.plan_id });
  if (!a.ok) throw new Error(a.error.message);
  const x = await agent.call("execute", { approval_receipt: a.value.receipt, steps: p.value.steps.map((s) => ({ transaction_id: s.transaction_id, action_name: s.action_name, params: s.params })) });
  if (!x.ok) throw new Error(x.error.message);
  return { plan: p.value, results: x.value.results, files };
}

async function auditKinds(d: ComposedDaemon, txId: string): Promise<{ kind: string; status: unknown }[]> {
  const h = await d.service.agent("model").call("history", { limit: 500 });
  if (!h.ok) throw new Error(h.error.message);
  return h.value.entries.filter((e) => e.transaction_id === txId).map((e) => ({ kind: e.kind, status: e.status }));
}

describe("confirm-or-auto-revert with the daemon's clock", () => {
  it("the preview carries the confirm window (config approval.confirm_window_s) for the approver and the model; a step with revert off has none", async () => {
    const d = await daemon(join(work, "s-preview"), 45);
    try {
      const dir = mkdtempSync(join(work, "pv-"));
      const p = await d.service.agent("model").call("plan", { steps: [{ action: "SetMarker", params: { path: join(dir, "a"), value: "x" } }, { action: "SetMarker", params: { path: join(dir, "b"), value: "x", revert: false } }] });
      if (!p.ok) throw new Error(p.error.message);
      expect(p.value.steps[0]!.preview.confirm).toEqual({ window_s: 45 });
      expect(p.value.steps[0]!.preview.text).toMatch(/AUTO-REVERT: .* in 45 s unless `hostgate confirm <transaction_id>`/);
      expect(p.value.steps[1]!.preview.confirm).toBeUndefined();
      const shown = await d.service.admin("human").call("show", { transaction_id: p.value.plan_id });
      if (!shown.ok) throw new Error(shown.error.message);
      expect(shown.value.steps[0]!.preview.text).toContain("AUTO-REVERT");
      expect(ConfigSchema.safeParse({ approval: { confirm_window_s: 0 } }).success).toBe(false);
    } finally {
      await d.close();
    }
  });

  it("apply without confirm: awaiting_confirm until the deadline, then the daemon restores the prior state (reverted, audited); a late confirm is confirm_too_late", async () => {
    const d = await daemon(join(work, "s-revert"));
    try {
      const { results, files } = await applyMarkers(d, [{ value: "new", before: "old" }]);
      const r = results[0]!;
      expect(r.status).toBe("succeeded");
      expect(r.confirm).toEqual({ state: "awaiting_confirm", window_s: 120, deadline: new Date(now + 120_000).toISOString(), command: `hostgate confirm ${r.transaction_id}` });
      expect(readFileSync(files[0]!, "utf8")).toBe("new");
      now += 119_000;
      expect(await revertDue(d.service.deps)).toEqual([]);
      expect(readFileSync(files[0]!, "utf8")).toBe("new");
      now += 1_000;
      expect(await revertDue(d.service.deps)).toEqual([{ transaction_id: r.transaction_id, state: "reverted", error: null }]);
      expect(readFileSync(files[0]!, "utf8")).toBe("old");
      expect(d.service.deps.transactions().get(r.transaction_id)!.state).toBe("reverted");
      expect(await auditKinds(d, r.transaction_id)).toContainEqual({ kind: "execute.reverted", status: "reverted" });
      const late = await d.service.admin("human").call("confirm", { transaction_id: r.transaction_id });
      expect(late.ok ? null : late.error.code).toBe("confirm_too_late");
    } finally {
      await d.close();
    }
  });

  it("a file that did not exist before is removed again by the revert", async () => {
    const d = await daemon(join(work, "s-absent"));
    try {
      const { files } = await applyMarkers(d, [{ value: "new" }]);
      expect(existsSync(files[0]!)).toBe(true);
      now += 121_000;
      await revertDue(d.service.deps);
      expect(existsSync(files[0]!)).toBe(false);
    } finally {
      await d.close();
    }
  });

  it("confirm in time keeps the change (succeeded, confirmed_by recorded, audited); the deadline passes without a revert; a second confirm is not_awaiting_confirm", async () => {
    const d = await daemon(join(work, "s-confirm"));
    try {
      const { results, files } = await applyMarkers(d, [{ value: "new", before: "old" }]);
      const id = results[0]!.transaction_id;
      now += 60_000;
      const c = await d.service.admin("human").call("confirm", { transaction_id: id });
      if (!c.ok) throw new Error(c.error.message);
      expect(c.value).toMatchObject({ transaction_id: id, action_name: "SetMarker", host: "local", state: "succeeded", confirmed_at: new Date(now).toISOString() });
      now += 600_000;
      expect(await revertDue(d.service.deps)).toEqual([]);
      expect(readFileSync(files[0]!, "utf8")).toBe("new");
      const tx = d.service.deps.transactions().get(id)!;
      expect(tx.state).toBe("succeeded");
      expect(tx.confirmed_by).toMatch(/human/);
      expect(await auditKinds(d, id)).toContainEqual({ kind: "execute.confirmed", status: "succeeded" });
      const again = await d.service.admin("human").call("confirm", { transaction_id: id });
      expect(again.ok ? null : again.error.code).toBe("not_awaiting_confirm");
    } finally {
      await d.close();
    }
  });

  it("confirm takes the first 8 characters of a waiting step's id, as approve does; 7 are refused; a prefix of a step that is not waiting is unknown", async () => {
    const d = await daemon(join(work, "s-prefix"));
    try {
      const { results } = await applyMarkers(d, [{ value: "new", before: "old" }, { value: "kept", before: "x", revert: false }]);
      const admin = d.service.admin("human");
      const short = await admin.call("confirm", { transaction_id: results[0]!.transaction_id.slice(0, 7) });
      expect(short.ok ? null : short.error.code).toBe("unknown_transaction");
      const notWaiting = await admin.call("confirm", { transaction_id: results[1]!.transaction_id.slice(0, 8) });
      expect(notWaiting.ok ? null : notWaiting.error.code).toBe("unknown_transaction");
      const c = await admin.call("confirm", { transaction_id: results[0]!.transaction_id.slice(0, 8).toUpperCase() });
      if (!c.ok) throw new Error(c.error.message);
      expect(c.value).toMatchObject({ transaction_id: results[0]!.transaction_id, state: "succeeded" });
    } finally {
      await d.close();
    }
  });

  it("confirm refuses a step without a window, an unknown id and a non-id, saying what to do; an operator cannot confirm", async () => {
    const d = await daemon(join(work, "s-refusals"));
    try {
      const { results } = await applyMarkers(d, [{ value: "new", before: "old", revert: false }]);
      expect(results[0]!.confirm).toBeUndefined();
      expect(d.service.deps.transactions().get(results[0]!.transaction_id)!.state).toBe("succeeded");
      const admin = d.service.admin("human");
      const none = await admin.call("confirm", { transaction_id: results[0]!.transaction_id });
      expect(none.ok ? null : none.error.code).toBe("not_awaiting_confirm");
      expect(none.ok ? null : none.error.hint).toMatch(/Nothing to do/);
      const unknown = await admin.call("confirm", { transaction_id: "00000000-0000-4000-8000-000000000000" });
      expect(unknown.ok ? null : unknown.error.code).toBe("unknown_transaction");
      const junk = await admin.call("confirm", { transaction_id: "yes" });
      expect(junk.ok ? null : junk.error.message).toMatch(/not a transaction id, nor the first 8 or more characters of one waiting for a confirm; confirm takes the transaction_id/);
      const agent = await (d.service.agent("model") as unknown as { call(m: string, p: unknown): Promise<{ ok: boolean; error?: { code: string } }> }).call("confirm", { transaction_id: results[0]!.transaction_id });
      expect(agent.ok).toBe(false);
      // In process the operator role is what refuses; over the real agent socket the socket does (network-actions.test.ts).
      expect(agent.error!.code).toBe("insufficient_role");
    } finally {
      await d.close();
    }
  });

  it("a daemon restarted inside the window restores the prior state at start-up (reverted, audited as not confirmed before the restart)", async () => {
    const state = join(work, "s-restart");
    const d1 = await daemon(state);
    const { results, files } = await applyMarkers(d1, [{ value: "new", before: "old" }]);
    const id = results[0]!.transaction_id;
    await d1.close();
    expect(readFileSync(files[0]!, "utf8")).toBe("new");
    now += 5_000; // well inside the 120 s window
    const d2 = await daemon(state);
    try {
      expect(await d2.reverts).toEqual([{ transaction_id: id, state: "reverted", error: null }]);
      expect(readFileSync(files[0]!, "utf8")).toBe("old");
      const h = await d2.service.agent("model").call("history", { limit: 500 });
      if (!h.ok) throw new Error(h.error.message);
      expect(h.value.entries.find((e) => e.transaction_id === id && e.kind === "execute.reverted")?.detail).toMatch(/not confirmed before the daemon restarted/);
    } finally {
      await d2.close();
    }
  });

  it("a restore that fails leaves the transaction unknown, audited with why (the file was replaced by a directory)", async () => {
    const d = await daemon(join(work, "s-fail"));
    try {
      const { results, files } = await applyMarkers(d, [{ value: "new", before: "old" }]);
      const id = results[0]!.transaction_id;
      rmSync(files[0]!);
      mkdirSync(files[0]!);
      now += 120_000;
      const [out] = await revertDue(d.service.deps);
      expect(out).toMatchObject({ transaction_id: id, state: "unknown", error: { code: "revert_failed" } });
      const tx = d.service.deps.transactions().get(id)!;
      expect(tx.state).toBe("unknown");
      expect(tx.error?.message).toMatch(/Restoring the state from before SetMarker failed: .*not a regular file/);
      expect(await auditKinds(d, id)).toContainEqual({ kind: "execute.reverted", status: "unknown" });
    } finally {
      await d.close();
    }
  });

  it("a later step of the plan runs while an earlier one waits for its confirm; each reverts on its own", async () => {
    const d = await daemon(join(work, "s-order"));
    try {
      const { results, files } = await applyMarkers(d, [{ value: "one", before: "0" }, { value: "two", before: "0", revert: false }]);
      expect(results.map((r) => r.status)).toEqual(["succeeded", "succeeded"]);
      now += 121_000;
      await revertDue(d.service.deps);
      expect(files.map((f) => readFileSync(f, "utf8"))).toEqual(["0", "two"]);
    } finally {
      await d.close();
    }
  });
});

describe("confirm-or-auto-revert in real time (the daemon's own timer, a 1 s window)", () => {
  it("reverts by itself about a second after apply", async () => {
    const realClock = now;
    now = Date.now();
    const d = await daemon(join(work, "s-realtime"), 1);
    try {
      const { results, files } = await applyMarkers(d, [{ value: "new", before: "old" }]);
      expect(results[0]!.confirm?.window_s).toBe(1);
      expect(readFileSync(files[0]!, "utf8")).toBe("new");
      const id = results[0]!.transaction_id;
      // The clock port follows real time here; the daemon's timer fires at the deadline with nobody calling it.
      const tick = setInterval(() => { now = Date.now(); }, 20);
      try {
        const until = Date.now() + 10_000;
        while (d.service.deps.transactions().get(id)!.state !== "reverted" && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      } finally {
        clearInterval(tick);
      }
      expect(d.service.deps.transactions().get(id)!.state).toBe("reverted");
      expect(readFileSync(files[0]!, "utf8")).toBe("old");
    } finally {
      await d.close();
      now = Math.max(now, realClock);
    }
  });
});
