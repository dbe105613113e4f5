/**
 * Issue 22, "which daemon, said once and truly": the front's start notice names the daemon it really uses, and
 * `hostgate doctor` checks that same daemon (it used to start an embedded one while the fronts used a running
 * system daemon). A `hostgate daemon` child stands for the system daemon; HOSTGATE_DAEMON=system pins it, so
 * nothing outside this test's directories is looked at.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { runHostgate } from "../helpers/hostgate.ts";

let d: DaemonProcess;

describe("which daemon", () => {
  beforeAll(async () => { d = await startDaemon("backend:\n  type: mock\n"); }, 30_000);
  afterAll(async () => { await d?.stop(); });

  it("doctor checks the daemon the fronts use (the system daemon here), saying which and why", async () => {
    const env = { ...d.env, HOSTGATE_DAEMON: "system" };
    const r = await runHostgate(["doctor", "--no-clients", "--config", d.configPath], { env, timeoutMs: 60_000 });
    expect(r.stdout).toContain(`the system daemon: ${d.agentSocket} (HOSTGATE_DAEMON=system pins the system daemon)`);
    expect(r.stdout).not.toContain("embedded daemon");
    // One anchoring warning at most (issue 22: an unanchored chain was warned about by two checks).
    const warned = r.stdout.split("\n").filter((l) => /^\s*!/.test(l) && /anchor/i.test(l));
    expect(warned.length, r.stdout).toBeLessThanOrEqual(1);
    expect(r.stdout).toMatch(/✓ audit chain: intact/);
  });

  it("the stdio front's start notice names that daemon", async () => {
    // stdin closed at once: the front prints its start notice, then exits on EOF.
    const r = await runHostgate(["mcp", "--config", d.configPath], { env: { ...d.env, HOSTGATE_DAEMON: "system" }, input: "", timeoutMs: 30_000 });
    expect(r.stderr).toContain(`tools over stdio from the system daemon at ${d.agentSocket} (`);
  });

  it("a misspelt HOSTGATE_DAEMON stops the front and doctor with the allowed values", async () => {
    const env = { ...d.env, HOSTGATE_DAEMON: "sytem" };
    const doctor = await runHostgate(["doctor", "--no-clients", "--config", d.configPath], { env, timeoutMs: 60_000 });
    expect(doctor.stdout).toContain("set it to embedded (this user's daemon) or system");
    expect(doctor.code).toBe(1);
    const mcp = await runHostgate(["mcp", "--config", d.configPath], { env, input: "", timeoutMs: 30_000 });
    expect(mcp.stderr).toContain("HOSTGATE_DAEMON is \"sytem\"");
    expect(mcp.code).toBe(1);
  });
});
