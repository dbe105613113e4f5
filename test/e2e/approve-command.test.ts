/**
 * What the model is told to ask the human to type (issue 25 leftovers): the plan's `next` said `hostgate approve <id>`
 * on the system daemon too, whose admin socket (0600, root's) refuses anyone but root without sudo. Now the daemon
 * says what its admin socket needs (core/approver.ts): a real `hostgate daemon` (system mode, sockets as it creates
 * them) with an owner-only admin socket, then with daemon.admin_group; the embedded daemon behind a real `hostgate
 * mcp`; and `hostgate pending`'s footer, run as root under sudo (SUDO_USER, as sudo sets it), as root, and as a
 * member of the admin group (setpriv).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it, onTestFinished } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN, connectStdio, writeConfig } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";

type Json = Record<string, unknown>;
const work = mkdtempSync(join(tmpdir(), "hg-approve-command-"));
chmodSync(work, 0o755);
let daemon: DaemonProcess | undefined;
let client: Client | undefined;
afterAll(() => { rmSync(work, { recursive: true, force: true }); });
afterEach(async () => {
  await client?.close();
  client = undefined;
  await daemon?.stop();
  if (daemon) rmSync(daemon.dir, { recursive: true, force: true });
  daemon = undefined;
});

const step = (name: string) => ({ steps: [{ action: "WriteFile", params: { path: join(work, name), content: "x\n" } }] });

/** plan over the daemon's agent socket, then execute without a receipt: the `next` text and the refusal's hint. */
async function planAndTry(d: DaemonProcess, name: string): Promise<{ id: string; next: string; hint: string }> {
  const p = await rawIpc(d.agentSocket, "plan", step(name));
  const plan = (p.result as { value: { plan_id: string; next: string; steps: Json[] } }).value;
  expect(plan?.next, JSON.stringify(p)).toEqual(expect.any(String));
  const s = plan.steps[0]!;
  const e = await rawIpc(d.agentSocket, "execute", { steps: [{ transaction_id: s.transaction_id, action_name: s.action_name, params: s.params, approval_receipt: "yes" }] });
  const hint = (e.result as { value: { results: { error: { hint: string } }[] } }).value.results[0]!.error.hint;
  return { id: plan.plan_id, next: plan.next, hint };
}

describe("the plan's next text names the approve command the daemon's admin socket needs", () => {
  it("system daemon, admin socket 0600 root's: sudo hostgate approve <id>, in next and in execute's hint", async () => {
    daemon = await startDaemon("backend:\n  type: mock\n");
    const st = statSync(daemon.adminSocket);
    expect([st.uid, st.mode & 0o777]).toEqual([0, 0o600]);
    const r = await planAndTry(daemon, "a");
    expect(r.next).toContain(`Ask the user to run \`sudo hostgate approve ${r.id}\` in a terminal`);
    expect(r.hint).toContain(`\`sudo hostgate approve ${r.id}\``);
  });

  it("system daemon with daemon.admin_group: hostgate approve <id> for the group's members, sudo otherwise", async () => {
    daemon = await startDaemon("backend:\n  type: mock\ndaemon:\n  admin_group: adm\n");
    expect(statSync(daemon.adminSocket).mode & 0o777).toBe(0o660);
    const r = await planAndTry(daemon, "b");
    expect(r.next).toContain(`Ask the user to run \`hostgate approve ${r.id}\` as a member of group adm (else \`sudo hostgate approve ${r.id}\`) in a terminal`);
  });

  it("embedded daemon (hostgate mcp): plain hostgate approve <id>, no sudo", async () => {
    const env = isolatedEnv("approve-command");
    onTestFinished(() => { rmSync(dirname(env.HOSTGATE_STATE_DIR!), { recursive: true, force: true }); });
    client = await connectStdio("legacy", ["--config", writeConfig("backend:\n  type: mock\n")], { ...env, HOSTGATE_DAEMON: "embedded" });
    const r = await client.callTool({ name: "plan", arguments: step("c") });
    const plan = r.structuredContent as { plan_id: string; next: string };
    expect(r.isError, JSON.stringify(plan)).not.toBe(true);
    expect(plan.next).toContain(`Ask the user to run \`hostgate approve ${plan.plan_id}\` in a terminal`);
    expect(plan.next).not.toContain("sudo");
  });
});

describe("hostgate pending's footer names the approve command as this user reaches the admin socket", () => {
  const pending = (d: DaemonProcess, env: Record<string, string>, asAdm = false) => {
    const argv = [process.execPath, HOSTGATE_BIN, "pending", "--socket", d.adminSocket];
    const r = asAdm
      ? spawnSync("setpriv", ["--reuid", "65534", "--regid", "65534", "--groups", gid("adm"), ...argv], { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent", HOSTGATE_CONFIG_DIR: join(d.dir, "etc") }, timeout: 30_000 })
      : spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", env: { ...process.env, ...env }, timeout: 30_000 });
    return r.stdout + r.stderr;
  };
  const gid = (name: string): string => spawnSync("getent", ["group", name], { encoding: "utf8" }).stdout.split(":")[2]!;

  it("root under sudo: sudo hostgate approve; root itself and a member of the admin group: hostgate approve", async () => {
    daemon = await startDaemon("backend:\n  type: mock\ndaemon:\n  admin_group: adm\n");
    chmodSync(daemon.dir, 0o755); // the admin group's member reaches the socket and meets its own mode
    await planAndTry(daemon, "d");
    const sudo = pending(daemon, { SUDO_USER: "alice", SUDO_UID: "1000" });
    expect(sudo).toContain("Review and approve all steps of one with: sudo hostgate approve <plan>");
    const root = pending(daemon, { SUDO_USER: "" });
    expect(root).toContain("Review and approve all steps of one with: hostgate approve <plan>");
    const member = pending(daemon, {}, true);
    expect(member).toContain("Review and approve all steps of one with: hostgate approve <plan>");
  });
});
