/**
 * Issue 24, the network and system mutating actions with confirm-or-auto-revert, on the real machine without
 * disturbing it: a real `hostgate daemon` (dist build) runs inside a network namespace this test creates, in a
 * private mount namespace where /etc/sysctl.d is a directory of the test and /etc/ssh a tmpfs holding the test's
 * sshd_config (`Port 2202`). Real nftables (nft), real /proc/sys of that namespace, real files, the real CLI
 * (`hostgate approve` in a pty, `hostgate confirm`). Each action: preview then apply, a second preview says there
 * is nothing left to do; a table the test planted is never touched; without a confirm the prior state comes back;
 * a killed daemon restores at start-up; the refusals say what to do.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { runHostgate } from "../helpers/hostgate.ts";
import { applyStep, call, nothingToDoSummary, plan, stateOf, waitFor } from "../helpers/plan-steps.ts";

const ns = `hgm24d${process.pid}`;
const work = mkdtempSync(join(tmpdir(), `hg-netactions-${process.pid}-`));
const sysctlDir = join(work, "sysctl.d");
mkdirSync(sysctlDir);
/** Runs argv inside the test's network namespace and returns stdout. */
const inNs = (argv: string[]): string => execFileSync("ip", ["netns", "exec", ns, ...argv], { encoding: "utf8" });
const ipForward = (): string => inNs(["cat", "/proc/sys/net/ipv4/ip_forward"]).trim();
const hostgateRules = (): string[] => {
  try {
    return (JSON.parse(inNs(["nft", "-j", "list", "table", "inet", "hostgate"])) as { nftables: { rule?: { comment?: string } }[] }).nftables.flatMap((i) => (i.rule?.comment ? [i.rule.comment] : []));
  } catch {
    return [];
  }
};
const OTHER_TABLE = "add table inet other; add chain inet other c { type filter hook input priority 10; policy accept; }; add rule inet other c tcp dport 9999 drop";
const otherTable = (): string => inNs(["nft", "list", "table", "inet", "other"]);

/** The daemon's argv runs in the namespace, with the test's /etc/sysctl.d and /etc/ssh mounted over the host's. */
const wrap = ["ip", "netns", "exec", ns, "unshare", "--mount", "--propagation", "private", "sh", "-c",
  `mount --bind ${sysctlDir} /etc/sysctl.d && mount -t tmpfs tmpfs /etc/ssh && printf 'Port 2202\\n' > /etc/ssh/sshd_config && mkdir /etc/ssh/sshd_config.d && exec "$@"`, "sh"];
const config = (window: number): string => `backend:\n  type: mock\napproval:\n  same_user: allow\n  confirm_window_s: ${window}\n`;

let hostTables = "";
let hostForward = "";
beforeAll(() => {
  hostTables = execFileSync("nft", ["list", "tables"], { encoding: "utf8" });
  hostForward = readFileSync("/proc/sys/net/ipv4/ip_forward", "utf8");
  execFileSync("ip", ["netns", "add", ns]);
  // A new namespace may copy the host's value (net.core.devconf_inherit_init_net; podman's CNI sets the host's
  // to 1): start from the kernel default whatever this machine carries.
  inNs(["sh", "-c", "echo 0 > /proc/sys/net/ipv4/ip_forward"]);
  inNs(["nft", OTHER_TABLE]);
});
afterAll(() => {
  try { execFileSync("ip", ["netns", "delete", ns]); } catch { /* already gone */ }
  rmSync(work, { recursive: true, force: true });
});

describe("with a 120 s confirm window: preview, apply, confirm, second preview", () => {
  let d: DaemonProcess;
  beforeAll(async () => { d = await startDaemon(config(120), { wrap }); });
  afterAll(async () => { await d.stop(); });

  it("SetSysctl net.ipv4.ip_forward=1: preview shows the window; apply sets /proc/sys and writes the drop-in; hostgate confirm keeps it; a second preview has nothing to do", async () => {
    expect(ipForward()).toBe("0");
    const { step, result } = await applyStep(d, "SetSysctl", { key: "net.ipv4.ip_forward", value: "1" });
    expect(step.preview.summary).toBe("Set net.ipv4.ip_forward: 0 → 1; create /etc/sysctl.d/90-hostgate-net.ipv4.ip_forward.conf");
    expect(step.preview.confirm).toEqual({ window_s: 120 });
    expect(step.preview.text).toContain("AUTO-REVERT");
    expect(ipForward()).toBe("1");
    expect(readFileSync(join(sysctlDir, "90-hostgate-net.ipv4.ip_forward.conf"), "utf8")).toContain("net.ipv4.ip_forward = 1\n");
    expect(result.confirm?.command).toBe(`hostgate confirm ${step.transaction_id}`);
    expect(await stateOf(d, step.transaction_id)).toBe("awaiting_confirm");
    const c = await runHostgate(["confirm", step.transaction_id, "--socket", d.adminSocket], { env: d.env });
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/^Confirmed .* \(SetSysctl on local\) at .*: the change is kept\.\n$/);
    expect(await stateOf(d, step.transaction_id)).toBe("succeeded");
    const again = await plan(d, "SetSysctl", { key: "net.ipv4.ip_forward", value: "1" });
    expect(again.ok ? null : nothingToDoSummary(again.error)).toBe("Nothing to do: net.ipv4.ip_forward is already 1 (and /etc/sysctl.d/90-hostgate-net.ipv4.ip_forward.conf says so)");
    expect(readFileSync("/proc/sys/net/ipv4/ip_forward", "utf8"), "the host's own namespace is untouched").toBe(hostForward);
  });

  it("AllowFirewallPort tcp/8080 then RemoveFirewallPort: rules only in inet hostgate, the planted table untouched, each second preview has nothing to do", async () => {
    const before = otherTable();
    const allow = await applyStep(d, "AllowFirewallPort", { port: 8080 });
    expect(allow.step.preview.summary).toBe("Allow tcp/8080 in nftables table inet hostgate (creating the table and its input chain)");
    expect(hostgateRules()).toEqual(["hostgate:allow:tcp:8080"]);
    expect(inNs(["nft", "list", "chain", "inet", "hostgate", "input"])).toMatch(/tcp dport 8080 accept comment "hostgate:allow:tcp:8080"/);
    expect((await runHostgate(["confirm", allow.step.transaction_id, "--socket", d.adminSocket], { env: d.env })).code).toBe(0);
    const again = await plan(d, "AllowFirewallPort", { port: 8080 });
    expect(again.ok ? null : nothingToDoSummary(again.error)).toBe("Nothing to do: tcp/8080 is already allowed in inet hostgate");
    const remove = await applyStep(d, "RemoveFirewallPort", { port: 8080 });
    expect(remove.step.preview.summary).toBe("Remove the allow rule for tcp/8080 from inet hostgate");
    expect(hostgateRules()).toEqual([]);
    expect((await runHostgate(["confirm", remove.step.transaction_id, "--socket", d.adminSocket], { env: d.env })).code).toBe(0);
    const gone = await plan(d, "RemoveFirewallPort", { port: 8080 });
    expect(gone.ok ? null : nothingToDoSummary(gone.error)).toBe("Nothing to do: inet hostgate has no allow rule for tcp/8080");
    expect(otherTable()).toBe(before);
    expect(execFileSync("nft", ["list", "tables"], { encoding: "utf8" }), "the host's own ruleset").toBe(hostTables);
  });

  it("refusals: closing the SSH port (sshd_config's Port 2202) without auto_revert; core_pattern; a read-only key; a key the kernel lacks; confirm over the agent socket", async () => {
    const ssh = await plan(d, "RemoveFirewallPort", { port: 2202, auto_revert: false });
    expect(ssh.ok ? null : ssh.error.code).toBe("invalid_params");
    expect(ssh.ok ? null : ssh.error.message).toMatch(/port 2202 is an SSH port of this host/);
    expect(ssh.ok ? null : ssh.error.hint).toMatch(/auto_revert true/);
    const not22 = await plan(d, "RemoveFirewallPort", { port: 22, auto_revert: false });
    // not refused as an SSH port: with no rule for 22 in inet hostgate the answer is nothing_to_do (no transaction)
    expect(not22.ok ? "planned" : not22.error.code, "22 is not this host's SSH port: sshd_config says 2202").toBe("nothing_to_do");
    const withRevert = await plan(d, "RemoveFirewallPort", { port: 2202 });
    expect(withRevert.ok ? "planned" : withRevert.error.code).not.toBe("invalid_params");
    const core = await plan(d, "SetSysctl", { key: "kernel.core_pattern", value: "|/tmp/x" });
    expect(core.ok ? null : core.error.message).toMatch(/refuses kernel.core_pattern: its value can make the kernel run a program/);
    const ro = await plan(d, "SetSysctl", { key: "kernel.ostype", value: "x" });
    expect(ro.ok ? null : ro.error.message).toMatch(/kernel.ostype is read-only/);
    const none = await plan(d, "SetSysctl", { key: "net.ipv4.no_such_key", value: "1" });
    expect(none.ok ? null : none.error).toMatchObject({ code: "invalid_params", message: "This kernel has no sysctl net.ipv4.no_such_key." });
    const bad = await plan(d, "SetSysctl", { key: "../../etc/passwd", value: "1" });
    expect(bad.ok ? null : bad.error.code).toBe("invalid_params");
    const viaAgent = await call(d.agentSocket, "confirm", { transaction_id: "00000000-0000-4000-8000-000000000000" });
    expect(viaAgent.ok ? null : viaAgent.error.code).toBe("forbidden_method");
  });

  it("a daemon killed inside the window restores at start-up: ip_forward and the drop-in come back, the transaction is reverted", async () => {
    const { step } = await applyStep(d, "SetSysctl", { key: "net.ipv4.ip_forward", value: "0" });
    expect(ipForward()).toBe("0");
    await d.stop("SIGKILL");
    d = await startDaemon(config(120), { wrap, dir: d.dir });
    await waitFor(async () => (await stateOf(d, step.transaction_id)) === "reverted");
    expect(ipForward()).toBe("1");
    expect(readFileSync(join(sysctlDir, "90-hostgate-net.ipv4.ip_forward.conf"), "utf8")).toContain("net.ipv4.ip_forward = 1\n");
    expect(d.stderr()).toMatch(new RegExp(`transaction ${step.transaction_id} was not confirmed in time: prior state restored`));
  });
});

describe("with a 2 s confirm window, nobody confirms", () => {
  let d: DaemonProcess;
  beforeAll(async () => { d = await startDaemon(config(2), { wrap }); });
  afterAll(async () => { await d.stop(); });

  it("AllowFirewallPort udp/5353 is removed again and SetSysctl net.ipv4.ip_forward goes back, by the daemon's own timer", async () => {
    const fw = await applyStep(d, "AllowFirewallPort", { port: 5353, protocol: "udp" });
    expect(hostgateRules()).toContain("hostgate:allow:udp:5353");
    const was = ipForward();
    const flip = was === "1" ? "0" : "1";
    const sc = await applyStep(d, "SetSysctl", { key: "net.ipv4.ip_forward", value: flip });
    expect(ipForward()).toBe(flip);
    await waitFor(async () => (await stateOf(d, fw.step.transaction_id)) === "reverted" && (await stateOf(d, sc.step.transaction_id)) === "reverted");
    expect(hostgateRules()).not.toContain("hostgate:allow:udp:5353");
    expect(ipForward()).toBe(was);
    const late = await runHostgate(["confirm", fw.step.transaction_id, "--socket", d.adminSocket], { env: d.env });
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/confirm window of .* ended at .*; the daemon restores \(or restored\) the prior state/);
  });

  it("SetSysctl of a non-network key with persist false has no window and is not reverted", async () => {
    // Planned at its current value (nothing to do), so the host's own kernel is never changed by this test.
    const key = "kernel.msgmax";
    const cur = readFileSync(`/proc/sys/${key.replaceAll(".", "/")}`, "utf8").trim();
    const p = await plan(d, "SetSysctl", { key, value: cur, persist: false });
    // already in place: refused nothing_to_do, so no transaction and no confirm window exist
    expect(p.ok ? "planned" : p.error.code).toBe("nothing_to_do");
    expect(p.ok ? null : nothingToDoSummary(p.error)).toBe(`Nothing to do: ${key} is already ${cur}`);
    expect(readdirSync(sysctlDir).filter((f) => f.includes("msgmax"))).toEqual([]);
    expect(existsSync(join(sysctlDir, `90-hostgate-${key}.conf`))).toBe(false);
  });
});
