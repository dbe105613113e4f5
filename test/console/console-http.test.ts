/**
 * Issue 23, the approval console's web security over raw HTTP (no browser needed): DNS-rebinding Host checks,
 * same-origin posts, CSRF tokens, no state change on GET, session cookies and their idle expiry, one-time
 * login and enrollment links, rate limits, the CSP, inert hostile content, and the console URL in plan
 * results. A real composed daemon (real SQLite state and audit chain) serves the console on a free loopback port.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon } from "../../src/daemon/compose.ts";
import { csrfOf, login, raw, startRig, type ConsoleRig } from "./harness.ts";
import { planPage } from "../../src/daemon/console/pages.ts";
import { text } from "../../src/core/console/html.ts";
import { actorView, type Caller } from "../../src/core/caller.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

let rig: ConsoleRig;
beforeAll(async () => { rig = await startRig(); });
afterAll(async () => { await rig.close(); });

const stateOf = async (planId: string): Promise<string[]> => {
  const s = await rig.d.service.admin("human").call("show", { transaction_id: planId });
  if (!s.ok) throw new Error(s.error.message);
  return s.value.steps.map((st) => st.state);
};

describe("console: off unless configured or asked for", () => {
  it("a daemon without console.enabled serves no console and its plans carry no console_url, until console_link starts it", async () => {
    const work = mkdtempSync(join(tmpdir(), "hg-console-off-"));
    process.env.HOSTGATE_STATE_DIR = join(work, "state");
    const d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" }, console: { port: 0 } }), { mode: "embedded", announce: () => undefined });
    delete process.env.HOSTGATE_STATE_DIR;
    try {
      expect(d.service.deps.console?.origin()).toBeNull();
      const p1 = await d.service.agent("model").call("plan", { steps: [{ action: "WriteFile", params: { path: join(work, "a.conf"), content: "x\n" } }] });
      expect(p1.ok && p1.value.steps[0]!.console_url).toBe(undefined);
      const link = await d.service.admin("human").call("console_link", { purpose: "login" });
      expect(link.ok).toBe(true);
      if (!link.ok) return;
      expect(link.value.url).toMatch(/^http:\/\/localhost:\d+\/login#hgl_[A-Za-z0-9_-]{43}$/);
      const p2 = await d.service.agent("model").call("plan", { steps: [{ action: "WriteFile", params: { path: join(work, "b.conf"), content: "x\n" } }] });
      expect(p2.ok && p2.value.steps[0]!.console_url).toBe(`${link.value.origin}/plans/${p2.ok ? p2.value.steps[0]!.transaction_id : ""}`);
      expect(p2.ok && p2.value.next).toContain(`${link.value.origin}/plans/`);
    } finally {
      await d.close();
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("console_link is an admin-socket method: the agent side cannot mint a link", async () => {
    const r = await (rig.d.service.agent("model") as unknown as { call: (m: string, p: unknown) => Promise<{ ok: boolean; error?: { code: string } }> }).call("console_link", { purpose: "login" });
    expect(r.ok).toBe(false);
  });
});

describe("console: logins and links in the audit chain (issue 23)", () => {
  it("T23-console-audit: minting a link, a login, a refused or replayed link and a logout are signed entries naming the uid that minted the link, never a secret", async () => {
    const own = await startRig();
    try {
      const minter: Caller = { role: "admin", socket: "admin", peer: { uid: 4242, gid: 4242, pid: process.pid }, client_name: null, label: "admin" };
      const admin = own.d.service.admin("human", minter);
      const minted = await admin.call("console_link", { purpose: "login" });
      if (!minted.ok) throw new Error(minted.error.message);
      const token = minted.value.url.split("#")[1]!;
      const post = (path: string, body: string, extra: Record<string, string> = {}) => raw(own.port, "POST", path, { headers: { origin: own.origin, "content-type": "application/json", ...extra }, body });
      const ok = await post("/login", JSON.stringify({ token }));
      expect(ok.status).toBe(200);
      const cookie = ([] as string[]).concat(ok.headers["set-cookie"] ?? [])[0]!.split(";")[0]!;
      const replay = await post("/login", JSON.stringify({ token }));
      expect(replay.status).toBe(403);
      expect((await post("/enroll/options", JSON.stringify({ token: "made-up", name: "x" }))).status).toBe(403);
      const planned = await own.planWrites(["x\n"]);
      const page = await raw(own.port, "GET", `/plans/${planned.plan_id}`, { headers: { cookie } });
      const out = await raw(own.port, "POST", "/logout", { headers: { origin: own.origin, cookie, "content-type": "application/x-www-form-urlencoded" }, body: `csrf=${encodeURIComponent(csrfOf(page.body))}` });
      expect(out.status).toBe(303);
      expect((await raw(own.port, "GET", "/", { headers: { cookie } })).status).toBe(401);

      const entries = own.d.service.deps.audit().query({ limit: 1000 }).filter((e) => e.kind.startsWith("console."));
      const view = entries.map((e) => ({ kind: e.kind, actor: actorView(e.actor), payload: JSON.parse(e.payload) as Record<string, unknown> }));
      expect(view.map((e) => e.kind)).toEqual(["console.link", "console.login", "console.link_refused", "console.link_refused", "console.logout"]);
      expect(view[0]).toMatchObject({ actor: { uid: 4242, socket: "admin", label: "admin" }, payload: { purpose: "login", expires_at: minted.value.expires_at } });
      expect(view[1]).toMatchObject({ actor: { uid: 4242, socket: "admin", label: "console" }, payload: { session: expect.stringMatching(/^[A-Za-z0-9_-]{8}$/) as unknown } });
      expect(view[2]).toMatchObject({ actor: { label: "console" }, payload: { purpose: "login", message: "login link unknown, used or expired" } });
      expect(view[3]!.payload).toMatchObject({ purpose: "enroll" });
      expect(view[4]).toMatchObject({ actor: { uid: 4242, label: "console" }, payload: { session: view[1]!.payload.session } });
      // Neither the link's secret nor the session cookie is anywhere in the chain.
      const chain = own.d.service.deps.audit().query({ limit: 10_000 }).map((e) => `${e.actor} ${e.payload}`).join("\n");
      expect(chain).not.toContain(token);
      expect(chain).not.toContain(cookie.split("=")[1]!);
      expect((await own.d.service.deps.audit().verify()).status).toMatch(/^(intact|unanchored)$/);
      // history (the tool and the console's page) shows them readably: kind, who, what.
      const h = await own.d.service.agent("model").call("history", { limit: 20 });
      const login = h.ok ? h.value.entries.find((e) => e.kind === "console.login") : undefined;
      expect(login).toMatchObject({ actor: { uid: 4242, label: "console" }, detail: `console session ${String(view[1]!.payload.session)} opened with a one-time login link` });
      const again = await post("/login", JSON.stringify({ token: (await own.link("login")).split("#")[1]! }));
      const historyPage = await raw(own.port, "GET", "/history", { headers: { cookie: ([] as string[]).concat(again.headers["set-cookie"] ?? [])[0]!.split(";")[0]! } });
      expect(historyPage.body).toContain("console.link_refused");
      expect(historyPage.body).toContain("login link unknown, used or expired");
    } finally {
      await own.close();
    }
  });
});

describe("console: the webhook notifier on a new plan", () => {
  it("POSTs the plan's id, host, risk, summary and console URL, and the plan does not wait for a receiver that hangs", async () => {
    const got: string[] = [];
    let release: () => void = () => undefined;
    const hold = new Promise<void>((r) => { release = r; });
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => { body += c.toString(); });
      req.on("end", () => { got.push(body); void hold.then(() => res.end()); });
    });
    await new Promise<void>((r) => { server.listen(0, "127.0.0.1", r); });
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const rig2 = await startRig({ config: { console: { enabled: true, port: 0, notify: { webhook_url: hook, timeout_ms: 30_000 } } } });
    try {
      const plan = await rig2.planWrites(["secret_value = 1\n"]);
      // The plan answered while the receiver still holds its response: the notifier is never awaited.
      await expect.poll(() => got.length).toBe(1);
      const msg = JSON.parse(got[0]!) as Record<string, unknown>;
      expect(Object.keys(msg).sort()).toEqual(["console_url", "host", "plan_id", "risk", "summary"]);
      expect(msg).toMatchObject({ plan_id: plan.plan_id, host: "local", risk: "high", console_url: plan.steps[0]!.console_url });
      expect(got[0]).not.toContain("secret_value");
    } finally {
      release();
      server.closeAllConnections();
      server.close();
      await rig2.close();
    }
  });
});

describe("console: who may talk to it", () => {
  it("refuses a rebinding Host header (another name, or another port) and answers its own", async () => {
    expect((await raw(rig.port, "GET", "/login", { headers: { host: `evil.example:${rig.port}` } })).status).toBe(403);
    expect((await raw(rig.port, "GET", "/login", { headers: { host: `localhost:${rig.port + 1}` } })).status).toBe(403);
    expect((await raw(rig.port, "GET", "/login", { headers: { host: "localhost" } })).status).toBe(403);
    expect((await raw(rig.port, "GET", "/login")).status).toBe(200);
  });

  it("every answer carries the strict CSP and friends; pages hold no inline script", async () => {
    const r = await raw(rig.port, "GET", "/login");
    expect(r.headers["content-security-policy"]).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    expect(r.headers["x-frame-options"]).toBe("DENY");
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(r.body.match(/<script[^>]*>/g)).toEqual(['<script src="/static/console.js" defer>']);
    expect(r.body).not.toMatch(/ on[a-z]+=|style="/);
  });

  it("pages need a session; a login link works once, sets an HttpOnly SameSite=Strict cookie, and the session ends after its idle time", async () => {
    expect((await raw(rig.port, "GET", "/")).status).toBe(401);
    const url = await rig.link("login");
    const token = url.split("#")[1]!;
    const post = (t: string) => raw(rig.port, "POST", "/login", { headers: { origin: rig.origin, "content-type": "application/json" }, body: JSON.stringify({ token: t }) });
    const first = await post(token);
    expect(first.status).toBe(200);
    const cookie = ([] as string[]).concat(first.headers["set-cookie"] ?? [])[0]!;
    expect(cookie).toMatch(/^hostgate_console=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=600$/);
    expect((await post(token)).status).toBe(403);
    expect((await post("x".repeat(43))).status).toBe(403);
    const session = cookie.split(";")[0]!;
    expect((await raw(rig.port, "GET", "/", { headers: { cookie: session } })).status).toBe(200);
    rig.clock.advance(9 * 60_000);
    expect((await raw(rig.port, "GET", "/history", { headers: { cookie: session } })).status).toBe(200);
    rig.clock.advance(10 * 60_000 + 1);
    expect((await raw(rig.port, "GET", "/", { headers: { cookie: session } })).status).toBe(401);
  });

  it("an enrollment link is not a login link, and a login link is not an enrollment link", async () => {
    const enroll = (await rig.link("enroll")).split("#")[1]!;
    const r = await raw(rig.port, "POST", "/login", { headers: { origin: rig.origin, "content-type": "application/json" }, body: JSON.stringify({ token: enroll }) });
    expect(r.status).toBe(403);
  });

  it("T23-enroll-link-used-at-first-use: /enroll/options uses the link up and binds the ceremony to that browser; a second party gets \"used\"", async () => {
    const own = await startRig({ passkeys: "daemon" });
    try {
      const token = (await own.link("enroll")).split("#")[1]!;
      const post = (path: string, body: unknown, cookie?: string) => raw(own.port, "POST", path, { headers: { origin: own.origin, "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });
      const human = await post("/enroll/options", { token, name: "Ada laptop" });
      expect(human.status, human.body).toBe(200);
      const set = ([] as string[]).concat(human.headers["set-cookie"] ?? []);
      expect(set).toHaveLength(1);
      expect(set[0]).toMatch(/^hostgate_enroll=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/enroll; Max-Age=300$/);
      const cookie = set[0]!.split(";")[0]!;
      // The model read the same link: it is used now, and finishing needs the human's browser's cookie.
      const model = await post("/enroll/options", { token, name: "model" });
      expect(model.status).toBe(403);
      expect((JSON.parse(model.body) as { error: string }).error).toMatch(/already used .*hostgate console enroll/);
      const noCookie = await post("/enroll/finish", { token, name: "model", registration: {} });
      expect(noCookie.status).toBe(403);
      expect((JSON.parse(noCookie.body) as { error: string }).error).toContain("No enrollment was started in this browser");
      // The human's ceremony is one attempt: a bad registration is refused by the backend, and the cookie is spent.
      const bad = await post("/enroll/finish", { name: "Ada laptop", registration: { id: "x", response: { clientDataJSON: "e30" } } }, cookie);
      expect(bad.status).not.toBe(200);
      expect((JSON.parse(bad.body) as { error: string }).error).not.toContain("No enrollment was started");
      const again = await post("/enroll/finish", { name: "Ada laptop", registration: {} }, cookie);
      expect(again.status).toBe(403);
      expect((JSON.parse(again.body) as { error: string }).error).toContain("No enrollment was started in this browser");
      expect(own.d.service.deps.passkeys().list()).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it("enrolling without the one-time link is refused, saying how to get one", async () => {
    for (const path of ["/enroll/options", "/enroll/finish"]) {
      const r = await raw(rig.port, "POST", path, { headers: { origin: rig.origin, "content-type": "application/json" }, body: JSON.stringify({ name: "alice", token: "" }) });
      expect(r.status).toBe(403);
      expect((JSON.parse(r.body) as { error: string }).error).toContain("hostgate console enroll");
    }
  });

  it("rate-limits login attempts", async () => {
    const rig2 = await startRig();
    try {
      const codes: number[] = [];
      for (let i = 0; i < 12; i++) codes.push((await raw(rig2.port, "POST", "/login", { headers: { origin: rig2.origin, "content-type": "application/json" }, body: JSON.stringify({ token: "nope" }) })).status);
      expect(codes.slice(0, 10).every((c) => c === 403)).toBe(true);
      expect(codes.slice(10)).toEqual([429, 429]);
      rig2.clock.advance(60_000);
      expect((await raw(rig2.port, "POST", "/login", { headers: { origin: rig2.origin, "content-type": "application/json" }, body: JSON.stringify({ token: "nope" }) })).status).toBe(403);
    } finally {
      await rig2.close();
    }
  });

  it("refuses a body over 64 KiB", async () => {
    const r = await raw(rig.port, "POST", "/login", { headers: { origin: rig.origin, "content-type": "application/json" }, body: JSON.stringify({ token: "x".repeat(70_000) }) });
    expect(r.status).toBe(413);
  });
});

describe("console: nothing changes a plan but the page's own posts", () => {
  it("a cross-origin form post, a post without Origin, a missing or wrong CSRF token and GETs to approve/reject URLs change nothing; the page's own reject does", async () => {
    const session = await login(rig);
    const plan = await rig.planWrites(["a = 1\n"]);
    const page = await raw(rig.port, "GET", `/plans/${plan.plan_id}`, { headers: { cookie: session } });
    expect(page.status).toBe(200);
    const csrf = csrfOf(page.body);
    const form = (body: string, headers: Record<string, string>) => raw(rig.port, "POST", `/plans/${plan.plan_id}/reject`, { headers: { cookie: session, "content-type": "application/x-www-form-urlencoded", ...headers }, body });
    expect((await form(`csrf=${csrf}`, { origin: "http://evil.example" })).status).toBe(403);
    expect((await form(`csrf=${csrf}`, { origin: rig.origin, "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await form(`csrf=${csrf}`, {})).status).toBe(403);
    expect((await form("", { origin: rig.origin })).status).toBe(403);
    expect((await form("csrf=wrong", { origin: rig.origin })).status).toBe(403);
    for (const suffix of ["approve", "reject", "approve/options"]) {
      expect((await raw(rig.port, "GET", `/plans/${plan.plan_id}/${suffix}`, { headers: { cookie: session } })).status).toBe(405);
    }
    expect(await stateOf(plan.plan_id)).toEqual(["planned"]);
    const ok = await form(`csrf=${csrf}`, { origin: rig.origin });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe(`/plans/${plan.plan_id}?done=rejected`);
    expect(await stateOf(plan.plan_id)).toEqual(["rejected"]);
  });

  it("approve needs the CSRF header, and without a passkey backend says to approve in a terminal", async () => {
    const session = await login(rig);
    const plan = await rig.planWrites(["b = 2\n"]);
    const csrf = csrfOf((await raw(rig.port, "GET", `/plans/${plan.plan_id}`, { headers: { cookie: session } })).body);
    const post = (headers: Record<string, string>) => raw(rig.port, "POST", `/plans/${plan.plan_id}/approve/options`, { headers: { cookie: session, origin: rig.origin, "content-type": "application/json", ...headers }, body: "{}" });
    expect((await post({})).status).toBe(403);
    const r = await post({ "x-csrf-token": csrf });
    expect(r.status).toBe(503);
    expect((JSON.parse(r.body) as { error: string }).error).toContain("hostgate approve");
    expect(await stateOf(plan.plan_id)).toEqual(["planned"]);
  });
});

describe("console: pages", () => {
  it("lists a pending plan with its host, risk, summary, planner and client, and shows its diff with marked lines", async () => {
    const session = await login(rig);
    const plan = await rig.planWrites(["listen 80;\n"]);
    const list = await raw(rig.port, "GET", "/", { headers: { cookie: session } });
    expect(list.body).toContain(`/plans/${plan.plan_id}`);
    expect(list.body).toContain('<span class="risk risk-high">HIGH</span>');
    expect(list.body).toContain("explicit");
    const page = await raw(rig.port, "GET", `/plans/${plan.plan_id}`, { headers: { cookie: session } });
    expect(page.body).toContain('<span class="ln add">+listen 80;</span>');
    expect(page.body).toContain('<span class="ln file">+++ b');
    expect(page.body).toContain(`data-countdown="${(Date.parse(plan.steps[0]!.expires_at) - rig.clock.now()) / 1000}"`);
    expect(page.body).toContain(plan.steps[0]!.preview_hash);
    // The summary is shown once: as its own field when the preview text does not open with it, else only there.
    const shown = await rig.d.service.admin("human").call("show", { transaction_id: plan.plan_id });
    if (!shown.ok) throw new Error(shown.error.message);
    const step = shown.value.steps[0]!;
    const once = (body: string): number => body.split(text(step.preview.summary)).length - 1;
    expect(step.preview.text.startsWith(`${step.preview.summary}\n`)).toBe(true);
    expect(once(page.body)).toBe(1);
    expect(page.body).not.toContain("<dt>Summary</dt>");
    const other = { ...shown.value, steps: [{ ...step, preview: { ...step.preview, text: step.preview.text.slice(step.preview.summary.length + 1) } }] };
    const rendered = planPage(other, { csrf: "c", passkeys: false, notice: null, now: rig.clock.now() });
    expect(once(rendered)).toBe(1);
    expect(rendered).toContain("<dt>Summary</dt>");
    // Without passkeys the page names the terminal command this daemon's admin socket needs (issue 25 leftover).
    expect(rendered).toContain(`approve in a terminal with <code>hostgate approve ${plan.plan_id}</code>.`);
    const system = planPage(other, { csrf: "c", passkeys: false, notice: null, now: rig.clock.now(), approver: { command: "sudo hostgate approve", group: null } });
    expect(system).toContain(`<code>sudo hostgate approve ${plan.plan_id}</code>.`);
    const group = planPage(other, { csrf: "c", passkeys: false, notice: null, now: rig.clock.now(), approver: { command: "hostgate approve", group: "hgadmin" } });
    expect(group).toContain(`<code>hostgate approve ${plan.plan_id}</code> as a member of group hgadmin (else <code>sudo hostgate approve ${plan.plan_id}</code>).`);
  });

  it("renders hostile plan content inert: markup escaped, bidi and control characters made visible", async () => {
    const session = await login(rig);
    const hostile = '<script>alert(1)</script><img src=x onerror="alert(2)">\u202Eexe.txt\u200B\n';
    const plan = await rig.planWrites([hostile]);
    const page = await raw(rig.port, "GET", `/plans/${plan.plan_id}`, { headers: { cookie: session } });
    expect(page.body).toContain("+&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;&lt;U+202E&gt;exe.txt&lt;U+200B&gt;");
    expect(page.body).not.toContain("<script>alert");
    expect(page.body).not.toContain("\u202E");
    expect(page.body).not.toContain("\u200B");
  });

  it("history, audit and separation pages answer", async () => {
    const session = await login(rig);
    const h = await raw(rig.port, "GET", "/history", { headers: { cookie: session } });
    expect(h.body).toContain("plan.created");
    const a = await raw(rig.port, "GET", "/audit", { headers: { cookie: session } });
    expect(a.body).toMatch(/Verify result: <strong>(intact|unanchored)<\/strong>/);
    expect(a.body).toMatch(/class="mono">\d+:[0-9a-f]{64}</);
    const s = await raw(rig.port, "GET", "/separation", { headers: { cookie: session } });
    expect(s.body).toContain("Convenience, same user.");
  });
});
