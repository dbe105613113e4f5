import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveViaPty, rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";

// Issue 25 re-trial, finding 1: under the .deb's unit (User= root, Group=hostgate) a file a plan created was
// root:hostgate, a bare GID once purge deletes the group. Real daemon started the unit's way (uid 0, primary gid
// not 0, through setpriv), a real WriteFile plan approved under a pty and executed, real files' owners read back.

const gid = Number(spawnSync("getent", ["group", "nogroup"], { encoding: "utf8" }).stdout.split(":")[2]);
const missing = process.getuid?.() !== 0 ? "needs root" : !Number.isInteger(gid) || gid === 0 ? "no nogroup group" : spawnSync("setpriv", ["--version"]).status !== 0 ? "no setpriv" : null;

let d: DaemonProcess;
let work: string;

describe.skipIf(missing)("a daemon started as root with another primary group (the unit's Group=)", () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "hg-created-"));
    d = await startDaemon("backend:\n  type: mock\napproval:\n  same_user: allow\n", { wrap: ["setpriv", "--regid", String(gid), "--keep-groups"] });
  }, 30_000);
  afterAll(async () => {
    await d?.stop();
    if (d) rmSync(d.dir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it("runs with group root, says so, and gives the agent socket the group it started with", () => {
    const status = readFileSync(`/proc/${d.child.pid}/status`, "utf8");
    expect(/^Gid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/)).toEqual(["0", "0", "0", "0"]);
    expect(d.stderr()).toContain(`started with primary group ${gid}`);
    expect(statSync(d.agentSocket).gid).toBe(gid);
    expect(statSync(d.agentSocket).mode & 0o777).toBe(0o660);
    // What the daemon itself created at start (its audit key pin, state) is root:root too.
    const pins = join(d.env.HOSTGATE_CONFIG_DIR!, "audit-pins");
    for (const f of readdirSync(pins)) expect(statSync(join(pins, f)).gid, f).toBe(0);
    expect(statSync(join(d.env.HOSTGATE_STATE_DIR!, "audit.db")).gid).toBe(0);
  });

  it("a WriteFile plan that creates a new file leaves it root:root", async () => {
    const target = join(work, "x.txt");
    const planned = await rawIpc(d.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path: target, content: "new\n" } }] });
    const s = (planned.result as { value: { steps: { transaction_id: string; action_name: string; params: unknown }[] } }).value.steps[0]!;
    const approved = await approveViaPty(d.adminSocket, s.transaction_id);
    expect(approved.receipt, approved.output).not.toBeNull();
    const done = await rawIpc(d.agentSocket, "execute", { steps: [{ transaction_id: s.transaction_id, action_name: s.action_name, params: s.params, approval_receipt: approved.receipt }] });
    expect((done.result as { value: { results: { status: string }[] } }).value.results[0]!.status, JSON.stringify(done)).toBe("succeeded");
    expect(readFileSync(target, "utf8")).toBe("new\n");
    const st = statSync(target);
    expect([st.uid, st.gid]).toEqual([0, 0]);
  }, 60_000);
});
