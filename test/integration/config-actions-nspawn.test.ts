/**
 * Issue 24, SetTimezone and EnableNtp where systemd runs as PID 1: the timedated path, on a real systemd in an
 * nspawn container reached over SSH as `deploy` with `become: sudo` (a static inventory host of a composed
 * daemon). SetTimezone asks systemd-timedated (timedatectl set-timezone); the container's own `timedatectl show`
 * and /etc/localtime agree; a second preview has nothing to do. The container has no NTP service, so EnableNtp
 * is refused with timedated's CanNTP=no. SetSshdOption there: refused while sshd_config lacks the Include; then the preview, made as `deploy` (who cannot read the
 * host keys), says the check waits for apply; apply (root via sudo) writes the drop-in, sshd -T agrees, and the
 * transaction awaits its confirm (the embedded daemon's window).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComposedDaemon } from "../../src/daemon/compose.ts";
import { nspawnSshPrereqs, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { startNspawnLab, type NspawnLab } from "../helpers/nspawn-lab.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";
import { nothingToDoSummary } from "../helpers/plan-steps.ts";
import { testApprover } from "../support/approver.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING config-actions-nspawn tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

suite("SetTimezone / EnableNtp through systemd-timedated, and SetSshdOption, on an nspawn systemd host over SSH (issue 24)", () => {
  let peer: NspawnSshPeer;
  let d: ComposedDaemon;

  let lab: NspawnLab | undefined;
  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    lab = await startNspawnLab("hg-time-nspawn-");
    ({ peer, d } = lab);
  }, 120_000);
  afterAll(async () => { await lab?.stop(); });

  /** Plans one step on the container; its preview summary or the refusal. */
  async function preview(action: string, params: Record<string, unknown>): Promise<{ summary?: string; transaction_id?: string; error?: { code: string; message: string; hint?: string } }> {
    const p = await d.service.agent("nspawn").call("plan", { host: "box", steps: [{ action, params }] });
    if (!p.ok) return { error: p.error, summary: nothingToDoSummary(p.error) };
    return { summary: p.value.steps[0]!.preview.summary, transaction_id: p.value.steps[0]!.transaction_id };
  }

  it("SetTimezone Asia/Tokyo: preview names timedated, apply sets it through timedated, the container agrees, a second preview has nothing to do", async () => {
    const before = peer.container.exec(["timedatectl", "show", "-p", "Timezone", "--value"]).stdout.trim();
    const agent = d.service.agent("nspawn");
    const p = await agent.call("plan", { host: "box", steps: [{ action: "SetTimezone", params: { zone: "Asia/Tokyo" } }] });
    if (!p.ok) throw new Error(p.error.message);
    const step = p.value.steps[0]!;
    expect(step.preview.summary).toBe(`Set the time zone to Asia/Tokyo (now ${before})`);
    expect(step.preview.text).toContain("through systemd-timedated (timedatectl set-timezone)");
    const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: step.transaction_id });
    if (!a.ok) throw new Error(a.error.message);
    const x = await agent.call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: "SetTimezone", params: step.params, approval_receipt: a.value.receipt }] });
    if (!x.ok) throw new Error(x.error.message);
    expect(x.value.results[0]).toMatchObject({ status: "succeeded", output: { zone: "Asia/Tokyo", previous: before, mode: "timedated" } });
    expect(peer.container.exec(["timedatectl", "show", "-p", "Timezone", "--value"]).stdout.trim()).toBe("Asia/Tokyo");
    expect(peer.container.exec(["readlink", "/etc/localtime"]).stdout.trim()).toMatch(/zoneinfo\/Asia\/Tokyo$/);
    expect((await preview("SetTimezone", { zone: "Asia/Tokyo" })).summary).toBe("Nothing to do: the time zone is already Asia/Tokyo");
  });

  it("SetSshdOption MaxAuthTries 4 over SSH as a sudo user: refused without sshd_config's Include; then the preview without root defers the sshd check to apply; apply writes the drop-in and sshd -T says 4; a second preview has nothing to do", async () => {
    const refused = await preview("SetSshdOption", { option: "MaxAuthTries", value: "4" });
    expect(refused.error, "the peer's sshd_config has no Include").toMatchObject({ code: "invalid_params", message: "/etc/ssh/sshd_config does not include /etc/ssh/sshd_config.d/*.conf, so a drop-in there would be ignored." });
    const conf = `${peer.container.fileRoot}/etc/ssh/sshd_config`;
    writeFileSync(conf, `Include /etc/ssh/sshd_config.d/*.conf\n${readFileSync(conf, "utf8")}`);
    mkdirSync(`${peer.container.fileRoot}/etc/ssh/sshd_config.d`, { recursive: true });
    const agent = d.service.agent("nspawn");
    const p = await agent.call("plan", { host: "box", steps: [{ action: "SetSshdOption", params: { option: "MaxAuthTries", value: "4" } }] });
    if (!p.ok) throw new Error(p.error.message);
    const step = p.value.steps[0]!;
    expect(step.preview.summary).toBe("Set sshd MaxAuthTries 4 (now unknown); create /etc/ssh/sshd_config.d/01-hostgate-maxauthtries.conf and reload sshd");
    expect(step.preview.text).toContain("sshd -T needs root on this host: the configuration is checked at apply");
    const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: step.transaction_id });
    if (!a.ok) throw new Error(a.error.message);
    const x = await agent.call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: "SetSshdOption", params: step.params, approval_receipt: a.value.receipt }] });
    if (!x.ok) throw new Error(x.error.message);
    expect(x.value.results[0]).toMatchObject({ status: "succeeded", output: { option: "MaxAuthTries", value: "4" } });
    expect(peer.container.exec(["/usr/sbin/sshd", "-T"]).stdout).toMatch(/^maxauthtries 4$/m);
    expect((await preview("SetSshdOption", { option: "MaxAuthTries", value: "4" })).summary).toBe("Nothing to do: /etc/ssh/sshd_config.d/01-hostgate-maxauthtries.conf already sets MaxAuthTries 4");
  });

  it("EnableNtp with no NTP service in the container: refused with timedated's CanNTP=no, saying what to install", async () => {
    expect((await preview("EnableNtp", {})).error).toMatchObject({ code: "invalid_params", message: "systemd-timedated reports no NTP service it can enable (CanNTP=no).", hint: "Install one first: InstallPackage systemd-timesyncd (or chrony)." });
  });
});
