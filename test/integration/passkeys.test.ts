/**
 * Issue 23, passkeys (backend): enrollment, passkey approvals, revoke, policy, and their proof in the audit
 * chain, without a browser. A real in-process daemon (composeDaemon) on real SQLite and a real signed audit chain
 * in a temp state dir; real WebAuthn verification (@simplewebauthn/server) of real ES256 assertions made by the
 * software authenticator of test/support/soft-authenticator.ts; WriteFile steps on real files.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalOptions, approveWithPasskey, enrollmentFinish, enrollmentOptions, listPasskeys, revokePasskey } from "../../src/app/passkeys.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { inProcessCaller, type Caller } from "../../src/core/caller.ts";
import { HostgateError } from "../../src/core/errors.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { runVerify } from "../../src/cli/audit.ts";
import type { PlanResult } from "../../src/ipc/protocol.ts";
import { SoftAuthenticator } from "../support/soft-authenticator.ts";
import { testApprover } from "../support/approver.ts";
import { tamper } from "../audit/helpers.ts";

const work = mkdtempSync(join(tmpdir(), `hg-passkeys-${process.pid}-`));
afterAll(() => { rmSync(work, { recursive: true, force: true }); });
const rp = { id: "localhost", origin: "http://localhost:7391", name: "hostgate" };
const console_ = inProcessCaller("admin", "console");

async function daemon(name: string, approval: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<ComposedDaemon> {
  process.env.HOSTGATE_STATE_DIR = join(work, name);
  const d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" }, approval, ...extra }), { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
  return d;
}

/** Rejects with a HostgateError of `code` whose message matches `text`. */
async function refusedWith(p: Promise<unknown>, code: string, text: RegExp): Promise<void> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(HostgateError);
  expect((err as HostgateError).code).toBe(code);
  expect((err as HostgateError).message).toMatch(text);
}

let d: ComposedDaemon;
let n = 0;
async function planWrite(dd: ComposedDaemon = d): Promise<{ plan: PlanResult; file: string }> {
  const file = join(work, `f${++n}`);
  const p = await dd.service.agent("model").call("plan", { steps: [{ action: "WriteFile", params: { path: file, content: `written ${n}\n` } }] });
  if (!p.ok) throw new Error(p.error.message);
  return { plan: p.value, file };
}
const shownOf = (plan: PlanResult) => plan.steps.map((s) => ({ transaction_id: s.transaction_id, preview_hash: s.preview_hash }));

/** Enrolls `auth` as `name` (vouched for by `by` when a passkey exists). */
async function enroll(auth: SoftAuthenticator, name: string, by?: SoftAuthenticator, dd: ComposedDaemon = d): Promise<{ credential_id: string; name: string }> {
  const o = await enrollmentOptions(dd.service.deps, rp, name);
  return enrollmentFinish(dd.service.deps, rp, { name, registration: auth.register(o.creation), ...(by && o.existing ? { existing_assertion: by.assert(o.existing) } : {}) }, console_);
}

const alice = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
const bob = new SoftAuthenticator({ id: rp.id, origin: rp.origin }, false);

beforeAll(async () => { d = await daemon("main"); });
afterAll(async () => { await d.close(); });

describe("enrollment (issue 23)", () => {
  it("T23-enroll-first: the first passkey enrolls with no existing assertion; its audit entry carries the COSE public key and name", async () => {
    const o = await enrollmentOptions(d.service.deps, rp, "alice laptop");
    expect(o.existing).toBeNull();
    expect(o.creation.authenticatorSelection).toMatchObject({ userVerification: "required" });
    const r = await enrollmentFinish(d.service.deps, rp, { name: "alice laptop", registration: alice.register(o.creation) }, console_);
    expect(r).toEqual({ credential_id: alice.credentialId, name: "alice laptop" });
    expect(listPasskeys(d.service.deps)).toMatchObject([{ credential_id: alice.credentialId, name: "alice laptop", last_used_at: null }]);
    const entry = d.openStores().audit.query({ kind: "passkey.enrolled" })[0]!;
    expect(JSON.parse(entry.payload)).toMatchObject({ credential_id: alice.credentialId, name: "alice laptop", public_key: Buffer.from(alice.coseKey()).toString("base64url") });
  });

  it("T23-enroll-second-needs-assertion: a second passkey without an assertion from the first is refused; with one it enrolls", async () => {
    const o = await enrollmentOptions(d.service.deps, rp, "bob phone");
    expect(o.existing).not.toBeNull();
    await refusedWith(enrollmentFinish(d.service.deps, rp, { name: "bob phone", registration: bob.register(o.creation) }, console_), "passkey_refused", /adding another needs an assertion from an enrolled passkey/);
    // An assertion from an authenticator that was never enrolled does not vouch either.
    const stranger = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
    const o2 = await enrollmentOptions(d.service.deps, rp, "bob phone");
    await refusedWith(enrollmentFinish(d.service.deps, rp, { name: "bob phone", registration: bob.register(o2.creation), existing_assertion: stranger.assert(o2.existing!) }, console_), "passkey_refused", /was never enrolled/);
    expect(await enroll(bob, "bob phone", alice)).toEqual({ credential_id: bob.credentialId, name: "bob phone" });
    expect(listPasskeys(d.service.deps).map((p) => p.name)).toEqual(["alice laptop", "bob phone"]);
    const entry = d.openStores().audit.query({ kind: "passkey.enrolled" }).at(-1)!;
    expect(JSON.parse(entry.payload)).toMatchObject({ name: "bob phone", vouched_by: alice.credentialId });
  });

  it("T23-enroll-bad-input: a bad name, a taken name, a bad relying party and a registration for no open challenge each say what to do", async () => {
    await refusedWith(enrollmentOptions(d.service.deps, rp, ""), "invalid_params", /1 to 64 printable characters/);
    await refusedWith(enrollmentOptions(d.service.deps, rp, "x\u202Ey"), "invalid_params", /no control or format characters/);
    await refusedWith(enrollmentOptions(d.service.deps, rp, "alice laptop"), "invalid_params", /"alice laptop" is already enrolled/);
    await refusedWith(enrollmentOptions(d.service.deps, { ...rp, origin: "http://evil.example:7391" }, "x"), "invalid_params", /origin must be/);
    const carol = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
    await refusedWith(enrollmentFinish(d.service.deps, rp, { name: "carol", registration: carol.register({ challenge: "AAAA" }) }, console_), "passkey_refused", /does not answer an enrollment challenge/);
  });

  it("T23-enroll-uv-false: a registration without user verification is refused", async () => {
    const dave = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
    const o = await enrollmentOptions(d.service.deps, rp, "dave");
    await refusedWith(enrollmentFinish(d.service.deps, rp, { name: "dave", registration: dave.register(o.creation, { uv: false }), existing_assertion: alice.assert(o.existing!) }, console_), "passkey_refused", /user verification|User verification/i);
    expect(listPasskeys(d.service.deps).map((p) => p.name)).not.toContain("dave");
  });
});

describe("passkey approvals (issue 23)", () => {
  it("T23-approve-passkey: a fresh assertion over the plan's steps mints the receipt; execute runs it once; the audit entry and history say who and how", async () => {
    const { plan, file } = await planWrite();
    const o = await approvalOptions(d.service.deps, rp, plan.plan_id);
    expect(o.steps).toEqual(shownOf(plan));
    expect(o.options.userVerification).toBe("required");
    const r = await approveWithPasskey(d.service.deps, rp, plan.plan_id, o.steps, alice.assert(o.options), console_);
    expect(r.method).toBe("passkey");
    const ex = await d.service.agent("model").call("execute", { steps: plan.steps.map((s) => ({ transaction_id: s.transaction_id, action_name: s.action_name, params: s.params, approval_receipt: r.receipt })) });
    expect(ex.ok && ex.value.results.map((x) => x.status)).toEqual(["succeeded"]);
    expect(readFileSync(file, "utf8")).toMatch(/^written/);
    const entry = d.openStores().audit.query({ kind: "approve" }).at(-1)!;
    expect(JSON.parse(entry.payload)).toMatchObject({ method: "passkey", approver: "alice laptop", passkey: { credential_id: alice.credentialId, user_verified: true } });
    const p = JSON.parse(entry.payload) as { passkey: Record<string, string> };
    for (const k of ["authenticator_data", "client_data_json", "signature", "nonce"]) expect(p.passkey[k]).toMatch(/^[A-Za-z0-9_-]{8,}$/);
    const h = await d.service.agent("model").call("history", { limit: 50 });
    expect(h.ok && h.value.entries.find((e) => e.kind === "approve" && e.transaction_id === plan.steps[0]!.transaction_id)?.approval).toEqual({ method: "passkey", approver: "alice laptop" });
    expect(listPasskeys(d.service.deps).find((k) => k.name === "alice laptop")?.last_used_at).not.toBeNull();
  });

  it("T23-replay-refused: the same assertion sent twice is refused the second time", async () => {
    const { plan } = await planWrite();
    const o = await approvalOptions(d.service.deps, rp, plan.plan_id);
    const a = bob.assert(o.options);
    await approveWithPasskey(d.service.deps, rp, plan.plan_id, o.steps, a, console_);
    await refusedWith(approveWithPasskey(d.service.deps, rp, plan.plan_id, o.steps, a, console_), "passkey_refused", /replayed assertion is refused/);
  });

  it("T23-never-enrolled: an authenticator that was never enrolled cannot approve", async () => {
    const { plan } = await planWrite();
    const o = await approvalOptions(d.service.deps, rp, plan.plan_id);
    const stranger = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
    await refusedWith(approveWithPasskey(d.service.deps, rp, plan.plan_id, o.steps, stranger.assert(o.options), console_), "passkey_refused", /was never enrolled here/);
    const refused = d.openStores().audit.query({ kind: "approve.refused" }).at(-1)!;
    expect(JSON.parse(refused.payload)).toMatchObject({ plan_id: plan.plan_id, proof: "passkey" });
  });

  it("T23-other-plan: an assertion made for one plan is refused for another", async () => {
    const a = await planWrite();
    const b = await planWrite();
    const oa = await approvalOptions(d.service.deps, rp, a.plan.plan_id);
    await refusedWith(approveWithPasskey(d.service.deps, rp, b.plan.plan_id, shownOf(b.plan), alice.assert(oa.options), console_), "passkey_refused", /made for another plan/);
  });

  it("T23-other-preview-hash: an assertion is refused for other steps or preview hashes than it was made for", async () => {
    const { plan } = await planWrite();
    const o = await approvalOptions(d.service.deps, rp, plan.plan_id);
    const other = o.steps.map((s) => ({ ...s, preview_hash: "0".repeat(64) }));
    await refusedWith(approveWithPasskey(d.service.deps, rp, plan.plan_id, other, alice.assert(o.options), console_), "passkey_refused", /other steps or preview hashes/);
  });

  it("T23-uv-false: an assertion without user verification is refused", async () => {
    const { plan } = await planWrite();
    const o = await approvalOptions(d.service.deps, rp, plan.plan_id);
    await refusedWith(approveWithPasskey(d.service.deps, rp, plan.plan_id, o.steps, alice.assert(o.options, { uv: false }), console_), "passkey_refused", /User verification required/);
  });

  it("T23-wrong-origin: an assertion made on another origin is refused", async () => {
    const { plan } = await planWrite();
    const o = await approvalOptions(d.service.deps, rp, plan.plan_id);
    await refusedWith(approveWithPasskey(d.service.deps, rp, plan.plan_id, o.steps, alice.assert(o.options, { origin: "http://localhost:9999" }), console_), "passkey_refused", /origin/);
  });

  it("T23-no-exemption: an in-process caller without a proof is refused like any process without a terminal; a test proof approves", async () => {
    const { plan } = await planWrite();
    const bare = await d.service.admin("human").call("approve", { transaction_id: plan.plan_id });
    expect(bare.ok ? null : bare.error.code).toBe("approval_refused");
    const ok = await d.service.admin("human", testApprover()).call("approve", { transaction_id: plan.plan_id });
    expect(ok.ok && ok.value.method).toBe("test");
  });
});

describe("audit verify re-checks passkey approvals offline (issue 23)", () => {
  it("T23-verify-passkeys: audit verify reports each passkey approval as 'approved with passkey <name>, user verified'", async () => {
    const state = join(work, "main");
    const r = await runVerify({ stateDir: state, configDir: join(work, "no-pin") });
    expect(r.status === "unanchored" || r.status === "intact").toBe(true);
    const approvals = r.status === "unanchored" || r.status === "intact" ? r.passkey_approvals ?? [] : [];
    expect(approvals.length).toBeGreaterThanOrEqual(2);
    expect(approvals.map((a) => a.text)).toContain("approved with passkey alice laptop, user verified; convenience, same user");
    expect(approvals.map((a) => a.text)).toContain("approved with passkey bob phone, user verified; convenience, same user");
  });

  it("T23-verify-tampered: one flipped byte in a recorded assertion makes verify say broken", async () => {
    const dd = await daemon("tamper");
    const carol = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
    await enroll(carol, "carol", undefined, dd);
    const { plan } = await planWrite(dd);
    const o = await approvalOptions(dd.service.deps, rp, plan.plan_id);
    await approveWithPasskey(dd.service.deps, rp, plan.plan_id, o.steps, carol.assert(o.options), console_);
    const db = join(work, "tamper", "audit.db");
    const verify = () => runVerify({ db, stateDir: join(work, "tamper"), configDir: join(work, "no-pin") });
    expect((await verify()).status).not.toBe("broken");
    const entry = dd.openStores().audit.query({ kind: "approve" }).at(-1)!;
    const payload = JSON.parse(entry.payload) as { passkey: Record<string, string> };
    const sig = payload.passkey.signature!;
    const flipped = sig.slice(0, 10) + (sig[10] === "A" ? "B" : "A") + sig.slice(11);
    // (a) An approval entry whose assertion was altered, written and signed by the daemon's own key (so the chain
    // itself checks out): the passkey re-verification finds it.
    const forged = await dd.service.deps.audit().append({ kind: "approve", actor: "forger", payload: { ...payload, passkey: { ...payload.passkey, signature: flipped } } }, { durable: true });
    expect(await verify()).toMatchObject({ status: "broken", reason: "bad_passkey_assertion", first_bad_seq: forged.seq });
    await dd.close();
    // (b) A byte flipped in the stored entry itself: the chain's own hash no longer matches, at the earlier seq.
    tamper(db, (raw) => { raw.prepare("UPDATE audit_entries SET payload = ? WHERE seq = ?").run(entry.payload.replace(sig, flipped), entry.seq); });
    expect(await verify()).toMatchObject({ status: "broken", first_bad_seq: entry.seq });
  });
});

describe("revoke (issue 23)", () => {
  it("T23-revoke: a revoked passkey cannot approve; revoking it again or an unknown id says what to do", async () => {
    const { plan } = await planWrite();
    const o = await approvalOptions(d.service.deps, rp, plan.plan_id);
    await revokePasskey(d.service.deps, bob.credentialId, console_);
    expect(listPasskeys(d.service.deps).map((p) => p.name)).toEqual(["alice laptop"]);
    await refusedWith(approveWithPasskey(d.service.deps, rp, plan.plan_id, o.steps, bob.assert(o.options), console_), "passkey_refused", /bob phone was revoked/);
    await refusedWith(revokePasskey(d.service.deps, bob.credentialId, console_), "invalid_params", /already revoked/);
    await refusedWith(revokePasskey(d.service.deps, "nope", console_), "not_found", /was ever enrolled/);
    expect(JSON.parse(d.openStores().audit.query({ kind: "passkey.revoked" })[0]!.payload)).toMatchObject({ credential_id: bob.credentialId, name: "bob phone" });
  });
});

describe("policy: plans only a passkey may approve (issue 23)", () => {
  it("T23-passkey-required-from: with approval.passkey_required_from, a terminal (here: test) approval is refused naming hostgate console; show says so; a passkey approves", async () => {
    const dd = await daemon("required", { passkey_required_from: "low" });
    try {
      const erin = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
      await enroll(erin, "erin", undefined, dd);
      const { plan } = await planWrite(dd);
      const shown = await dd.service.admin("human", testApprover()).call("show", { transaction_id: plan.plan_id });
      expect(shown.ok && shown.value.approval.passkey_required).toMatch(/approval.passkey_required_from is low/);
      const a = await dd.service.admin("human", testApprover()).call("approve", { transaction_id: plan.plan_id });
      expect(a.ok ? null : a.error.code).toBe("passkey_required");
      expect(a.ok ? null : a.error.hint).toMatch(/hostgate console/);
      expect(JSON.parse(dd.openStores().audit.query({ kind: "approve.refused" }).at(-1)!.payload)).toMatchObject({ plan_id: plan.plan_id, proof: "test" });
      const o = await approvalOptions(dd.service.deps, rp, plan.plan_id);
      expect((await approveWithPasskey(dd.service.deps, rp, plan.plan_id, o.steps, erin.assert(o.options), console_)).method).toBe("passkey");
    } finally {
      await dd.close();
    }
  });

  it("T23-cedar-require-biometric: a RunCommand whose Cedar verdict is require_biometric is planned, refused for a terminal approval, and approved with a passkey", async () => {
    const policies = join(work, "policies");
    mkdirSync(policies, { recursive: true });
    writeFileSync(join(policies, "local.cedar"), [
      '@id("local-needs-passkey")', '@decision("require_biometric")', '@reason("commands on this host need a passkey approval")',
      'permit (principal in Hostgate::Role::"operator", action == Hostgate::Action::"exec", resource == Hostgate::Host::"local");', "",
    ].join("\n"));
    const dd = await daemon("cedar", {}, { policy: { dir: policies } });
    try {
      const frank = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
      await enroll(frank, "frank", undefined, dd);
      const p = await dd.service.agent("model").call("plan", { steps: [{ action: "RunCommand", params: { command: "echo hi" } }] });
      if (!p.ok) throw new Error(p.error.message);
      expect(p.value.steps[0]!.preview.warnings?.join(" ")).toMatch(/passkey approval/);
      const a = await dd.service.admin("human", testApprover()).call("approve", { transaction_id: p.value.plan_id });
      expect(a.ok ? null : a.error.message).toMatch(/the policy decided require_biometric/);
      const o = await approvalOptions(dd.service.deps, rp, p.value.plan_id);
      const r = await approveWithPasskey(dd.service.deps, rp, p.value.plan_id, o.steps, frank.assert(o.options), console_);
      expect(r.method).toBe("passkey");
    } finally {
      await dd.close();
    }
  });
});

describe("what a passkey approval proves (issue 23)", () => {
  const asUid = (uid: number, socket: "admin" | "agent", role: "admin" | "operator"): Caller => ({ role, socket, peer: { uid, gid: uid, pid: process.pid }, client_name: socket === "agent" ? "claude-code" : null, label: socket === "admin" ? "console" : "mcp" });
  const model = asUid(1000, "agent", "operator");

  /** A system-mode daemon (as `hostgate daemon` composes it) with its state, config dir and checkpoint copy in the test's directory. */
  async function systemDaemon(name: string): Promise<ComposedDaemon> {
    process.env.HOSTGATE_STATE_DIR = join(work, name);
    process.env.HOSTGATE_CONFIG_DIR = join(work, `${name}-config`);
    try {
      return await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" }, audit: { checkpoint_copy: join(work, `${name}-checkpoints.jsonl`) } }), { mode: "system", announce: () => undefined });
    } finally {
      delete process.env.HOSTGATE_STATE_DIR;
      delete process.env.HOSTGATE_CONFIG_DIR;
    }
  }

  async function planAs(dd: ComposedDaemon): Promise<PlanResult> {
    const p = await dd.service.agent("mcp", model).call("plan", { steps: [{ action: "WriteFile", params: { path: join(work, `sep${++n}`), content: "x\n" } }] });
    if (!p.ok) throw new Error(p.error.message);
    return p.value;
  }

  async function approveAs(dd: ComposedDaemon, auth: SoftAuthenticator, plan: PlanResult): Promise<{ separation: string; payload: Record<string, unknown> }> {
    const o = await approvalOptions(dd.service.deps, rp, plan.plan_id);
    const r = await approveWithPasskey(dd.service.deps, rp, plan.plan_id, o.steps, auth.assert(o.options), asUid(1000, "admin", "admin"));
    return { separation: r.separation, payload: JSON.parse(dd.openStores().audit.query({ kind: "approve" }).at(-1)!.payload) as Record<string, unknown> };
  }

  it("T23-passkey-separation-embedded: on the embedded daemon a passkey approval is 'convenience, same user' in the entry, history and audit verify", async () => {
    const dd = await daemon("sep-embedded");
    try {
      const gina = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
      const o = await enrollmentOptions(dd.service.deps, rp, "gina");
      await enrollmentFinish(dd.service.deps, rp, { name: "gina", registration: gina.register(o.creation) }, asUid(0, "admin", "admin"));
      const plan = await planAs(dd);
      const a = await approveAs(dd, gina, plan);
      expect(a.separation).toBe("none");
      expect(a.payload).toMatchObject({ method: "passkey", separation: "none", passkey: { daemon: "embedded", anchor_uid: 0, planner_uid: 1000 } });
      expect(a.payload.separation_facts).toMatch(/^convenience, same user: passkey gina approved on the embedded daemon/);
      const h = await dd.service.agent("model").call("history", { limit: 20 });
      expect(h.ok && h.value.entries.find((e) => e.kind === "approve")).toMatchObject({ separation: "none", approval: { method: "passkey", approver: "gina" } });
      const v = await runVerify({ stateDir: join(work, "sep-embedded"), configDir: join(work, "no-pin") });
      expect(v.status === "intact" || v.status === "unanchored" ? v.passkey_approvals?.map((x) => x.text) : v).toEqual(["approved with passkey gina, user verified; convenience, same user"]);
    } finally {
      await dd.close();
    }
  });

  it("T23-passkey-separation-system: on a system daemon, a passkey whose enrollment link another uid (root) minted approves separated; one the planner's uid anchored does not; verify checks the claim", async () => {
    const dd = await systemDaemon("sep-system");
    try {
      const hana = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
      const ivan = new SoftAuthenticator({ id: rp.id, origin: rp.origin });
      const o1 = await enrollmentOptions(dd.service.deps, rp, "hana");
      await enrollmentFinish(dd.service.deps, rp, { name: "hana", registration: hana.register(o1.creation) }, asUid(0, "admin", "admin"));
      expect(JSON.parse(dd.openStores().audit.query({ kind: "passkey.enrolled" }).at(-1)!.payload)).toMatchObject({ name: "hana", anchor: { uid: 0, socket: "admin", daemon: "system" } });
      const o2 = await enrollmentOptions(dd.service.deps, rp, "ivan");
      await enrollmentFinish(dd.service.deps, rp, { name: "ivan", registration: ivan.register(o2.creation), existing_assertion: hana.assert(o2.existing!) }, asUid(1000, "admin", "admin"));

      const p1 = await planAs(dd);
      const sep = await approveAs(dd, hana, p1);
      expect(sep.separation).toBe("separated");
      expect(sep.payload).toMatchObject({ separation: "separated", separation_facts: "passkey hana enrolled through a link minted on the admin socket by uid 0; planned by uid 1000", passkey: { daemon: "system", anchor_uid: 0, planner_uid: 1000 } });
      const p2 = await planAs(dd);
      const none = await approveAs(dd, ivan, p2);
      expect(none.separation).toBe("none");
      expect(none.payload.separation_facts).toMatch(/by uid 1000, the planner's own uid$/);

      const h = await dd.service.agent("model").call("history", { limit: 50 });
      const approvals = h.ok ? h.value.entries.filter((e) => e.kind === "approve") : [];
      expect(approvals.map((e) => [e.approval?.approver, e.separation])).toEqual([["ivan", "none"], ["hana", "separated"]]);
      const state = join(work, "sep-system");
      const verify = () => runVerify({ stateDir: state, configDir: join(work, "sep-system-config") });
      const v = await verify();
      expect(v.status === "intact" || v.status === "unanchored" ? v.passkey_approvals?.map((x) => x.text) : v).toEqual([
        "approved with passkey hana, user verified; separated (passkey hana enrolled through a link minted on the admin socket by uid 0; planned by uid 1000)",
        "approved with passkey ivan, user verified; separation none (passkey ivan enrolled through a link minted on the admin socket by uid 1000, the planner's own uid)",
      ]);
      // An entry that claims separation for ivan's approval (signed by the daemon's own key, so only this check can catch it) is broken.
      const forged = await dd.service.deps.audit().append({ kind: "approve", actor: "forger", payload: { ...none.payload, separation: "separated", passkey: { ...(none.payload.passkey as object), anchor_uid: 0 } } }, { durable: true });
      expect(await verify()).toMatchObject({ status: "broken", reason: "bad_passkey_assertion", first_bad_seq: forged.seq });
      expect((await verify()).status === "broken" && (await verify() as { detail: string }).detail).toMatch(/enrollment anchor uid 0, but passkey ivan was enrolled through a link minted by uid 1000/);
    } finally {
      await dd.close();
      // The system daemon made its checkpoint copy append-only (chattr +a, as root): clear it so the directory can go.
      try { execFileSync("chattr", ["-a", join(work, "sep-system-checkpoints.jsonl")], { stdio: "ignore" }); } catch { /* not append-only */ }
    }
  });
});
