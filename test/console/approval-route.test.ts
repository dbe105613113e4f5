/**
 * Issue 23, newcomer trial: a plan that needs a passkey told the model to have the human run `hostgate approve`
 * (which refuses it), `hostgate pending` said the same, and after a daemon restart (console not running yet) the
 * plan result gave no way to the console at all. A real `hostgate daemon` (mock systemd, its own state,
 * `approval.passkey_required_from: high`, console off until `hostgate console` starts it); plans over its agent
 * socket; `hostgate pending` and `hostgate console` on its admin socket.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { runHostgate } from "../helpers/hostgate.ts";
import { pendingFooter } from "../../src/cli/pending.ts";

let d: DaemonProcess;
beforeAll(async () => { d = await startDaemon("backend:\n  type: mock\napproval:\n  same_user: allow\n  passkey_required_from: high\nconsole:\n  port: 0\n"); }, 30_000);
afterAll(async () => { await d.stop(); rmSync(d.dir, { recursive: true, force: true }); });

type Plan = { plan_id: string; next: string; steps: { risk_level: string; console_url?: string }[] };
async function plan(step: { action: string; params: Record<string, unknown> }): Promise<Plan> {
  const r = await rawIpc(d.agentSocket, "plan", { steps: [step] }) as { ok: boolean; result?: { value: Plan }; value?: Plan };
  const v = (r.result?.value ?? r.value)!;
  expect(v, JSON.stringify(r)).toBeDefined();
  return v;
}
const write = (name: string) => ({ action: "WriteFile", params: { path: join(d.dir, name), content: "x\n" } });

describe("where a plan is approved (issue 23)", () => {
  it("T23-next-passkey-no-console: a plan that needs a passkey says approve in the console and how to start it, not hostgate approve", async () => {
    const p = await plan(write("a.conf"));
    expect(p.steps[0]!.risk_level).toBe("high");
    expect(p.steps[0]!.console_url).toBeUndefined(); // the console is not running yet
    expect(p.next).toContain("needs a passkey approval");
    expect(p.next).toContain("approve in the console");
    expect(p.next).toContain("`hostgate console`, which starts the console and prints a one-time login link");
    expect(p.next).not.toContain(`hostgate approve ${p.plan_id}`);
    expect(p.next).toContain("`hostgate approve` cannot approve it");
  });

  it("T23-pending-footer-passkey: hostgate pending says which plans need the console", async () => {
    const r = await runHostgate(["pending", "--socket", d.adminSocket, "-c", d.configPath], { env: d.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("These plans need a passkey: approve in the console (run `hostgate console` for a one-time login link); `hostgate approve` cannot approve it.");
    expect(r.stdout).not.toContain("hostgate approve <plan>");
    const json = await runHostgate(["pending", "--json", "--socket", d.adminSocket, "-c", d.configPath], { env: d.env });
    const plans = (JSON.parse(json.stdout) as { plans: { passkey_required: string | null }[] }).plans;
    expect(plans[0]!.passkey_required).toMatch(/is high risk, and approval.passkey_required_from is high/);
  });

  it("T23-next-passkey-console-url: once the console runs, the plan's next names its page", async () => {
    const link = await runHostgate(["console", "--no-open", "--socket", d.adminSocket, "-c", d.configPath], { env: { ...d.env, DISPLAY: "" } });
    expect(link.code, link.stderr).toBe(0);
    const p = await plan(write("b.conf"));
    expect(p.steps[0]!.console_url).toMatch(/^http:\/\/localhost:\d+\/plans\//);
    expect(p.next).toContain(`then opens ${p.steps[0]!.console_url!} (tell them this link)`);
    expect(p.next).toContain("approve in the console");
    expect(p.next).not.toContain(`hostgate approve ${p.plan_id}`);
  });

  it("pendingFooter: mixed lists name the passkey plans by short id; plain lists keep hostgate approve", () => {
    const base = { risk_level: "low" as const, host: "local", created_at: "", expires_at: "", actor: "", steps: [] };
    const mixed = pendingFooter({ plans: [{ ...base, plan_id: "aaaaaaaa-1", passkey_required: "x" }, { ...base, plan_id: "bbbbbbbb-2", passkey_required: null }] });
    expect(mixed).toBe("Review and approve all steps of one with: hostgate approve <plan> (its first 8 characters will do when unique)\nPlan aaaaaaaa needs a passkey: approve in the console (run `hostgate console` for a one-time login link); `hostgate approve` cannot approve it.\n");
    expect(pendingFooter({ plans: [{ ...base, plan_id: "c", passkey_required: null }] })).not.toContain("passkey");
  });
});
