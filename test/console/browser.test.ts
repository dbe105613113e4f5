/**
 * Issue 23 in a real browser: Debian's chromium driven by playwright-core, passkeys from a CDP virtual
 * authenticator (ctap2, internal, resident keys, user verification), against a composed daemon whose console
 * runs on a free loopback port, with the daemon's own passkey backend (src/app/passkeys.ts, real WebAuthn
 * verification, the SQLite credential store and the signed chain): enrollment, approval with the passkey, receipts
 * reaching execute, inert content, accessibility. The backend's refusals (replay, another plan or preview_hash)
 * are proven in test/integration/passkeys.test.ts.
 * Screenshots of every page are written under .test-results/console/. Skipped only when /usr/bin/chromium is absent.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLAN_TTL_MS } from "../../src/core/transaction/transaction.ts";
import type { PlanResult } from "../../src/ipc/protocol.ts";
import { startRig, type ConsoleRig } from "./harness.ts";
import { CATALOGUE } from "../../src/core/catalogue/index.ts";
import { actorView } from "../../src/core/caller.ts";
import { testApprover } from "../support/approver.ts";
import { setMarker } from "../support/set-marker.ts";

const CHROMIUM = "/usr/bin/chromium";
const SHOTS = join(process.cwd(), ".test-results", "console");
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) process.stderr.write(`test/console/browser.test.ts: skipped: ${CHROMIUM} is absent (apt-get install -y --no-install-recommends chromium)\n`);
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let rig: ConsoleRig;
let browser: Browser;

/** A browser context with its own virtual authenticator; `dialogs` collects any dialog a page opened. */
async function person(): Promise<{ ctx: BrowserContext; page: Page; dialogs: string[] }> {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (d) => { dialogs.push(d.message()); void d.dismiss(); });
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", { options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true } });
  return { ctx, page, dialogs };
}

async function loginIn(page: Page): Promise<void> {
  await page.goto(await rig.link("login"));
  await page.waitForURL(`${rig.origin}/`);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** axe-core's serious and critical violations on the page (run through CDP evaluation: the page's CSP stays on). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  type Axe = { run: (context: unknown) => Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> };
  const v = await page.evaluate(async () => {
    const g = globalThis as unknown as { axe: Axe; document: unknown };
    return (await g.axe.run(g.document)).violations;
  });
  return v.filter((x) => x.impact === "serious" || x.impact === "critical").map((x) => `${x.id} (${x.nodes.length})`);
}

const execute = (plan: PlanResult, receipt: string) => rig.d.service.agent("model").call("execute", {
  steps: plan.steps.map((s) => ({ transaction_id: s.transaction_id, action_name: s.action_name, params: s.params })), approval_receipt: receipt,
});

describe.skipIf(!haveChromium)("approval console in Debian's chromium with a virtual authenticator", () => {
  let alice: Awaited<ReturnType<typeof person>>;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    rig = await startRig({ passkeys: "daemon", catalogue: [...CATALOGUE, setMarker] });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    alice = await person();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  it("enrolls a passkey through the one-time enrollment link; the link works once", async () => {
    const link = await rig.link("enroll");
    await alice.page.goto(link);
    await shot(alice.page, "enroll");
    await alice.page.fill("#name", "alice");
    await alice.page.click("#enroll button");
    await expect.poll(() => alice.page.textContent("#result"), { timeout: 15_000 }).toContain("Passkey alice enrolled.");
    // Who enrolled it and when, from the audit chain: the list and the console's separation page show it.
    const listed = await rig.d.service.admin("h").call("passkeys_list", {});
    expect(listed.ok && listed.value.passkeys.map((p) => [p.name, typeof p.enrolled_by, typeof p.enrolled_seq])).toEqual([["alice", "string", "number"]]);
    // The same link again: refused, nothing enrolled.
    await alice.page.goto(link);
    await alice.page.fill("#name", "mallory");
    await alice.page.click("#enroll button");
    await expect.poll(() => alice.page.textContent("#result"), { timeout: 15_000 }).toContain("hostgate console enroll");
  }, 60_000);

  it("plan → the page lists it → approve with the passkey → execute runs once", async () => {
    await loginIn(alice.page);
    const plan = await rig.planWrites(["server_name example.org;\n"]);
    await alice.page.reload();
    expect(await alice.page.locator(`a[href="/plans/${plan.plan_id}"]`).count()).toBe(1);
    await shot(alice.page, "pending");
    expect(await seriousViolations(alice.page)).toEqual([]);
    await alice.page.goto(plan.steps[0]!.console_url!);
    await shot(alice.page, "plan");
    expect(await seriousViolations(alice.page)).toEqual([]);
    await alice.page.click("#approve button");
    const receipt = (await alice.page.locator("#receipt").textContent({ timeout: 15_000 }))!;
    expect(receipt).toMatch(/^hgr_/);
    await shot(alice.page, "approved");
    // T23-page-after-approve: the page shows the new state: steps approved, no approve button, the separation label.
    expect(await alice.page.locator("#approve").isVisible()).toBe(false);
    expect(await alice.page.locator("button.reject").isVisible()).toBe(false);
    expect(await alice.page.locator("[data-state]").allTextContents()).toEqual(["approved"]);
    expect(await alice.page.locator("#separation").textContent()).toMatch(/^Separation: (NONE|SEPARATED) \(.+\)$/);
    await alice.page.goto(`${rig.origin}/separation`);
    expect(await alice.page.locator("table").textContent()).toMatch(/alice.*2026-.*(console|uid)/s);
    await alice.page.goto(plan.steps[0]!.console_url!);
    expect(await alice.page.locator("main").textContent()).toContain("its steps are approved");
    const first = await execute(plan, receipt);
    expect(first.ok && first.value.results.map((r) => r.status)).toEqual(["succeeded"]);
    expect(readFileSync(plan.steps[0]!.params.path as string, "utf8")).toBe("server_name example.org;\n");
    const again = await execute(plan, receipt);
    expect(again.ok ? again.value.results.map((r) => r.status) : again.error.code).not.toEqual(["succeeded"]);
    const ran = await rig.d.service.agent("model").call("history", { action: "WriteFile", status: "succeeded", limit: 50 });
    expect(ran.ok && ran.value.entries.filter((e) => e.transaction_id === plan.steps[0]!.transaction_id && e.kind.startsWith("execute")).length).toBe(1);
  }, 60_000);

  it("reject in the page: the plan can never run", async () => {
    const plan = await rig.planWrites(["reject me\n"]);
    await alice.page.goto(`${rig.origin}/plans/${plan.plan_id}`);
    await alice.page.click("button.reject");
    await expect.poll(() => alice.page.locator("main").textContent(), { timeout: 15_000 }).toContain("Rejected: no step of this plan can run.");
    const s = await rig.d.service.admin("h").call("show", { transaction_id: plan.plan_id });
    expect(s.ok && s.value.steps[0]!.state).toBe("rejected");
  }, 60_000);

  it("expiry: a plan that expired while its page was open cannot be approved, and its page then says so", async () => {
    const plan = await rig.planWrites(["too late\n"]);
    await alice.page.goto(`${rig.origin}/plans/${plan.plan_id}`);
    rig.clock.advance(PLAN_TTL_MS + 1000);
    // The session's idle time passed too: log in again in the same tab's context, come back to the open page state.
    await alice.page.click("#approve button");
    await expect.poll(() => alice.page.locator("#result").textContent(), { timeout: 15_000 }).toContain("Not approved");
    await loginIn(alice.page);
    await alice.page.goto(`${rig.origin}/plans/${plan.plan_id}`);
    await expect.poll(() => alice.page.locator("main").textContent(), { timeout: 15_000 }).toContain("cannot be approved or rejected: its steps are expired");
    expect(await alice.page.locator("#approve").count()).toBe(0);
  }, 60_000);

  it("an authenticator that was never enrolled cannot approve", async () => {
    const mallory = await person();
    try {
      await loginIn(mallory.page);
      const plan = await rig.planWrites(["mallory was here\n"]);
      await mallory.page.goto(`${rig.origin}/plans/${plan.plan_id}`);
      await mallory.page.click("#approve button");
      // T23-webauthn-plain-error: the browser's raw NotAllowedError becomes what it means and what to do.
      await expect.poll(() => mallory.page.locator("#result").textContent(), { timeout: 70_000 }).toContain("Not approved: This passkey is not enrolled here, or you cancelled");
      expect(await mallory.page.locator("#result").textContent()).not.toContain("w3.org");
      const s = await rig.d.service.admin("h").call("show", { transaction_id: plan.plan_id });
      expect(s.ok && s.value.steps[0]!.state).toBe("planned");
    } finally {
      await mallory.ctx.close();
    }
  }, 90_000);

  it("hostile plan content renders inert: no script ran, no dialog opened", async () => {
    await loginIn(alice.page);
    const hostile = '<script>window.__pwned=1;alert(1)</script><img src=x onerror="window.__pwned=2;alert(2)"><svg onload="alert(3)">\u202Etxt.exe\u2066hidden\u2069\n';
    const plan = await rig.planWrites([hostile]);
    await alice.page.goto(`${rig.origin}/plans/${plan.plan_id}`);
    await alice.page.waitForTimeout(300);
    expect(await alice.page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(alice.dialogs).toEqual([]);
    expect(await alice.page.locator("main img, main svg, main script").count()).toBe(0);
    const text = (await alice.page.locator("pre.preview").textContent())!;
    expect(text).toContain('+<script>window.__pwned=1;alert(1)</script><img src=x onerror="window.__pwned=2;alert(2)"><svg onload="alert(3)"><U+202E>txt.exe<U+2066>hidden<U+2069>');
    await shot(alice.page, "hostile");
  }, 60_000);

  it("T24-console-confirm: an applied step waiting for its confirm shows with a countdown and a Confirm button; GET and a missing CSRF token change nothing; the button keeps the change, audited with method console", async () => {
    const dir = mkdtempSync(join(rig.work, "marker-"));
    const file = join(dir, "marker");
    writeFileSync(file, "before");
    const p = await rig.d.service.agent("model").call("plan", { steps: [{ action: "SetMarker", params: { path: file, value: "after" } }] });
    if (!p.ok) throw new Error(p.error.message);
    const a = await rig.d.service.admin("human", testApprover()).call("approve", { transaction_id: p.value.plan_id });
    if (!a.ok) throw new Error(a.error.message);
    const ex = await execute(p.value, a.value.receipt);
    expect(ex.ok && ex.value.results[0]!.confirm?.state).toBe("awaiting_confirm");
    const id = p.value.steps[0]!.transaction_id;
    const state = async () => { const s = await rig.d.service.admin("h").call("show", { transaction_id: id }); return s.ok ? s.value.steps[0]!.state : s.error.code; };
    await alice.page.goto(`${rig.origin}/`);
    const row = alice.page.locator("tr", { has: alice.page.locator(`form[action="/transactions/${id}/confirm"]`) });
    expect(await row.count()).toBe(1);
    await expect.poll(() => row.locator("time[data-countdown]").textContent(), { timeout: 5_000 }).toMatch(/^\d+ min \d+ s left$/);
    await shot(alice.page, "confirm");
    expect(await seriousViolations(alice.page)).toEqual([]);
    // No state change on GET, nor on a POST without the session's CSRF token.
    const get = await alice.ctx.request.get(`${rig.origin}/transactions/${id}/confirm`);
    expect(get.status()).toBe(405);
    const noCsrf = await alice.ctx.request.post(`${rig.origin}/transactions/${id}/confirm`, { form: { csrf: "wrong" }, headers: { origin: rig.origin } });
    expect(noCsrf.status()).toBe(403);
    expect(await state()).toBe("awaiting_confirm");
    await row.locator("button").click();
    await expect.poll(() => alice.page.locator("main").textContent(), { timeout: 15_000 }).toContain(`Confirmed ${id}: the change is kept.`);
    expect(await state()).toBe("succeeded");
    expect(readFileSync(file, "utf8")).toBe("after");
    expect(await alice.page.locator(`form[action="/transactions/${id}/confirm"]`).count()).toBe(0);
    const entry = rig.d.service.deps.audit().query({ kind: "execute.confirmed", limit: 1000 }).at(-1)!;
    expect(JSON.parse(entry.payload)).toMatchObject({ transaction_id: id, method: "console", status: "succeeded" });
    expect(actorView(entry.actor)).toMatchObject({ label: "console" });
  }, 60_000);

  it("history, audit and separation pages: accessible, with screenshots", async () => {
    for (const name of ["history", "audit", "separation"]) {
      await alice.page.goto(`${rig.origin}/${name}`);
      await shot(alice.page, name);
      expect(await seriousViolations(alice.page), name).toEqual([]);
    }
    await alice.page.goto(`${rig.origin}/login`);
    await shot(alice.page, "login");
  }, 60_000);
});
