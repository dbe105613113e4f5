// Review (s24): execute did not re-check the exposure settings. A plan made and approved while its toolset was on
// ran after the daemon came back with that toolset off (config is read at start: a restart is the reload of
// `tools.*`). A real daemon on one state directory, started three times: plan + approve (through the real CLI in a
// pty) with `host` on; execute with `tools.groups.host: false` is refused, naming the setting, and the receipt is not
// spent; with the setting gone again the same receipt runs the step.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { approveViaPty, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { call, plan } from "../helpers/plan-steps.ts";

const BASE = "backend:\n  type: mock\napproval:\n  same_user: allow\n";

describe("execute re-checks the exposure settings of the step's action (a real daemon, restarted with new config)", () => {
  const state = mkdtempSync(join(tmpdir(), "hg-exec-exposure-"));
  const target = mkdtempSync(join(tmpdir(), "hg-exec-exposure-target-"));
  let d: DaemonProcess | undefined;
  afterAll(async () => {
    await d?.stop();
    rmSync(state, { recursive: true, force: true });
    rmSync(target, { recursive: true, force: true });
  });

  it("a WriteFile approved with toolset host on is refused tool_disabled after a restart with tools.groups.host: false; the receipt still runs it once the setting is gone", async () => {
    const path = join(target, "app.conf");
    d = await startDaemon(BASE, { dir: state });
    const p = await plan(d, "WriteFile", { path, content: "a = 1\n" });
    if (!p.ok) throw new Error(p.error.message);
    const step = p.value.steps[0]!;
    const a = await approveViaPty(d.adminSocket, p.value.plan_id);
    expect(a.receipt, a.output).toBeDefined();
    await d.stop();

    d = await startDaemon(`${BASE}tools:\n  groups:\n    host: false\n`, { dir: state });
    const exec = { approval_receipt: a.receipt, steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params }] };
    const refused = await call<{ results: { status: string; error: { code: string; message: string; hint?: string } | null }[] }>(d.agentSocket, "execute", exec);
    if (!refused.ok) throw new Error(refused.error.message);
    const r = refused.value.results[0]!;
    expect(r.status).toBe("refused");
    expect(r.error?.code).toBe("tool_disabled");
    expect(r.error?.message).toContain("tools.groups.host");
    expect(r.error?.hint).toMatch(/tools\.groups\.host: true/);
    expect(existsSync(path)).toBe(false);
    await d.stop();

    d = await startDaemon(BASE, { dir: state });
    const ran = await call<{ results: { status: string; error: unknown }[] }>(d.agentSocket, "execute", exec);
    if (!ran.ok) throw new Error(ran.error.message);
    expect(ran.value.results[0]!.status, JSON.stringify(ran.value.results[0])).toBe("succeeded");
    expect(readFileSync(path, "utf8")).toBe("a = 1\n");
  }, 90_000);
});
