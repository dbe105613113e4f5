/**
 * Issue 24, trial f24b findings 4 and 5, on a composed daemon (real SQLite, mock systemd; the previews read this
 * host's real /etc/passwd and /proc/sys, nothing is changed) through the in-process agent client:
 * - a plan whose step relies on an earlier step's change (AddAuthorizedKey for the user a CreateUser step creates) is
 *   refused naming the step (index, action) and saying to plan it after the earlier step executes;
 * - a plan whose every change is already in place answers `nothing_to_do`: no transaction, nothing to approve.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";

const work = mkdtempSync(join(tmpdir(), `hg-plan-feedback-${process.pid}-`));
let d: ComposedDaemon;
let pub: string;
const user = `hgdep${process.pid}`.slice(0, 30);
const sysctl = (key: string): string => readFileSync(`/proc/sys/${key.replaceAll(".", "/")}`, "utf8").trim();

beforeAll(async () => {
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "f24b@test", "-f", join(work, "id")]);
  pub = readFileSync(join(work, "id.pub"), "utf8").trim();
  process.env.HOSTGATE_STATE_DIR = join(work, "state");
  d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
});
afterAll(async () => { await d.close(); });

const planned = (): number => d.openStores().transactions.list({ limit: 1000 }).length;

describe("a step that depends on an earlier step of the same plan", () => {
  it("CreateUser + AddAuthorizedKey for the same new user: refused naming step 2 (AddAuthorizedKey) and what to do; nothing planned", async () => {
    expect(readFileSync("/etc/passwd", "utf8")).not.toContain(`${user}:`);
    const before = planned();
    const r = await d.service.agent("t").call("plan", { steps: [{ action: "CreateUser", params: { name: user } }, { action: "AddAuthorizedKey", params: { user, key: pub } }] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("not_found");
    expect(r.error.message).toBe(`Step 2 (AddAuthorizedKey): No local user ${user} in /etc/passwd.`);
    expect(r.error.hint).toMatch(/^Steps are previewed against the host as it is now, before any step runs: if step 2 depends on step 1 \(CreateUser\), plan that step alone, execute, then plan step 2\./);
    expect(r.error.details).toMatchObject({ step: 2, action: "AddAuthorizedKey" });
    expect(planned()).toBe(before);
  });

  it("a failing first step is named too, without the dependency advice; a one-step plan's error is unchanged", async () => {
    const two = await d.service.agent("t").call("plan", { steps: [{ action: "AddAuthorizedKey", params: { user, key: pub } }, { action: "CreateUser", params: { name: user } }] });
    expect(two.ok ? null : two.error.message).toBe(`Step 1 (AddAuthorizedKey): No local user ${user} in /etc/passwd.`);
    expect(two.ok ? null : two.error.hint).not.toMatch(/previewed against the host as it is now/);
    const one = await d.service.agent("t").call("plan", { steps: [{ action: "AddAuthorizedKey", params: { user, key: pub } }] });
    expect(one.ok ? null : one.error.message).toBe(`No local user ${user} in /etc/passwd.`);
  });
});

describe("a plan with nothing to do", () => {
  const a = "kernel.msgmax";
  const b = "kernel.msgmnb";

  it("every change already in place: nothing_to_do with each step's summary, no transaction, no approval asked", async () => {
    const before = planned();
    const r = await d.service.agent("t").call("plan", { steps: [{ action: "SetSysctl", params: { key: a, value: sysctl(a), persist: false } }, { action: "SetSysctl", params: { key: b, value: sysctl(b), persist: false } }, { action: "GetLoad", params: {} }] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("nothing_to_do");
    expect(r.error.message).toBe(`Every change is already in place (Nothing to do: ${a} is already ${sysctl(a)}; Nothing to do: ${b} is already ${sysctl(b)}): no plan was made and there is nothing to approve.`);
    expect(r.error.hint).toMatch(/do not ask for an approval\. The read-only steps need no plan: call get_load \{\} directly\./);
    expect(r.error.hint).not.toMatch(/STOP|hostgate approve/);
    expect(r.error.details).toEqual({ steps: [{ step: 1, action_name: "SetSysctl", summary: `Nothing to do: ${a} is already ${sysctl(a)}` }, { step: 2, action_name: "SetSysctl", summary: `Nothing to do: ${b} is already ${sysctl(b)}` }] });
    expect(planned()).toBe(before);
  });

  it("one change already in place beside a real one: the plan is made as before, both steps shown", async () => {
    const before = planned();
    const r = await d.service.agent("t").call("plan", { steps: [{ action: "SetSysctl", params: { key: a, value: sysctl(a), persist: false } }, { action: "WriteFile", params: { path: join(work, "new.txt"), content: "x\n" } }] });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.steps.map((s) => s.action_name)).toEqual(["SetSysctl", "WriteFile"]);
    expect(r.value.next).toMatch(/STOP/);
    expect(planned()).toBe(before + 2);
  });
});
