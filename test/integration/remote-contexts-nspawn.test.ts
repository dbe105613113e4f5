/**
 * Issue 20, the wiring end to end on a real PID-1 systemd host: a composed daemon (no remoteContexts option) and a
 * static inventory entry for an nspawn container reachable over SSH as `deploy` with `become: sudo` (from the
 * inventory). WriteFile planned, approved (admin) and executed there; the second plan has nothing left to do;
 * ListUnits answers through the container's own manager (remote D-Bus).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComposedDaemon } from "../../src/daemon/compose.ts";
import { nspawnSshPrereqs, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { startNspawnLab, type NspawnLab } from "../helpers/nspawn-lab.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";
import { writeThroughApproval } from "../helpers/plan-approve-execute.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING remote-contexts-nspawn tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

suite("typed actions on an nspawn systemd host over SSH, through the composed daemon (issue 20)", () => {
  let peer: NspawnSshPeer;
  let d: ComposedDaemon;

  let lab: NspawnLab | undefined;
  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    lab = await startNspawnLab("hg-remote-ctx-nspawn-");
    ({ peer, d } = lab);
  }, 120_000);
  afterAll(async () => { await lab?.stop(); });

  it("the host's context offers files, systemd and mutate; ListUnits { host } answers from the container's manager", async () => {
    const r = await d.service.agent("nspawn").call("query", { action: "ListUnits", args: {}, host: "box" });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.meta).toMatchObject({ host: "box", action: "ListUnits" });
    expect(JSON.stringify(r.value.data)).toContain("ssh.service");
    expect((await d.service.deps.hosts.resolve("box")).ctx.capabilities).toEqual(["files", "systemd", "mutate", "exec"]);
  });

  it("WriteFile { host }: plan → approve (admin) → execute writes /etc in the container as root via sudo; the second plan has nothing left to do", async () => {
    const agent = d.service.agent("nspawn");
    const path = `/etc/hg-wired-${process.pid}.conf`;
    expect(await writeThroughApproval(d.service, "nspawn", "box", path, "listen = 80\n")).toMatchObject({ status: "succeeded" });
    expect(readFileSync(`${peer.container.fileRoot}${path}`, "utf8")).toBe("listen = 80\n");
    const owner = peer.container.exec(["stat", "-c", "%U %a", path]);
    expect(owner.stdout.trim()).toBe("root 644");
    const again = await agent.call("plan", { host: "box", steps: [{ action: "WriteFile", params: { path, content: "listen = 80\n" } }] });
    if (!again.ok) throw new Error(again.error.message);
    const shown = await d.service.admin("human").call("show", { transaction_id: again.value.steps[0]!.transaction_id });
    if (!shown.ok) throw new Error(shown.error.message);
    expect(JSON.stringify(shown.value)).toContain("(content unchanged)");
  });
});
