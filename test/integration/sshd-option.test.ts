/**
 * Issue 24, SetSshdOption with confirm-or-auto-revert, on the real machine without disturbing it: a real
 * `hostgate daemon` (dist build) runs in a network namespace this test creates, in a private mount namespace
 * whose /etc is an overlay (the host's /etc below, a directory of the test above: the test's sshd_config,
 * `Port 2202`, including sshd_config.d). A real sshd runs in that view; a real ssh client logs in as root with
 * the test's key. PermitRootLogin no locks the client out until the daemon's own timer reverts it; a confirmed
 * MaxAuthTries stays and a second preview has nothing to do; the refusals say what to do.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeEtcBox, inBox, openEtcBox, type EtcBox } from "../helpers/etc-overlay.ts";
import { runHostgate } from "../helpers/hostgate.ts";
import { applyStep, previewOf, stateOf, waitFor } from "../helpers/plan-steps.ts";

const config = (window: number): string => `backend:\n  type: mock\napproval:\n  same_user: allow\n  confirm_window_s: ${window}\n`;

/** The box's sshd: its keys, and an sshd_config on port 2202 that includes sshd_config.d. */
function sshdSetup(upper: string, work: string): void {
  mkdirSync(join(upper, "ssh", "sshd_config.d"), { recursive: true });
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(work, "hostkey")]);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(work, "client")]);
  writeFileSync(join(work, "authorized_keys"), readFileSync(join(work, "client.pub")));
  writeFileSync(join(upper, "ssh", "sshd_config"), [
    "Include /etc/ssh/sshd_config.d/*.conf", "Port 2202", "ListenAddress 127.0.0.1", `HostKey ${work}/hostkey`, `PidFile ${work}/sshd.pid`,
    `AuthorizedKeysFile ${work}/authorized_keys`, "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no", "",
  ].join("\n"));
}
const openBox = (tag: string, window: number): Promise<Box> => openEtcBox(`sshd${tag}`, config(window), { setup: sshdSetup, sshd: true });
const closeBox = closeEtcBox;
type Box = EtcBox;

/** Whether root can log in over real SSH with the test's key (a fresh connection: sshd re-reads its configuration). */
function rootCanLogIn(b: Box): boolean {
  const r = spawnSync("ip", ["netns", "exec", b.ns, "ssh", "-p", "2202", "-i", join(b.work, "client"), "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
    "-o", "UserKnownHostsFile=/dev/null", "-o", "ConnectTimeout=5", "root@127.0.0.1", "true"], { encoding: "utf8", timeout: 15_000 });
  return r.status === 0;
}

/** The effective sshd configuration in the box's view of /etc. */
const sshdT = (b: Box): string => inBox(b, ["/usr/sbin/sshd", "-T"]);

const dropIn = (b: Box, name: string): string => join(b.upper, "ssh", "sshd_config.d", `01-hostgate-${name}.conf`);

describe("SetSshdOption with a 2 s window that nobody confirms: the lock-out is undone by the daemon", () => {
  let b: Box | undefined;
  beforeAll(async () => { b = await openBox("a", 2); });
  afterAll(async () => { await closeBox(b); });

  it("PermitRootLogin no: preview shows the window, apply locks root out of the real sshd, the daemon's timer restores the drop-in and root logs in again", async () => {
    const box = b!;
    expect(rootCanLogIn(box)).toBe(true);
    const pid = box.sshdPid();
    const { step, result } = await applyStep(box.d, "SetSshdOption", { option: "permitrootlogin", value: "no" });
    expect(step.preview.summary).toBe("Set sshd PermitRootLogin no (now without-password); create /etc/ssh/sshd_config.d/01-hostgate-permitrootlogin.conf and reload sshd");
    expect(step.preview.confirm).toEqual({ window_s: 2 });
    expect(step.preview.text).toContain("effective now (sshd -T): permitrootlogin without-password");
    expect(result.output).toEqual({ option: "PermitRootLogin", value: "no", dropin: "/etc/ssh/sshd_config.d/01-hostgate-permitrootlogin.conf", reloaded_pid: pid });
    expect(readFileSync(dropIn(box, "permitrootlogin"), "utf8")).toContain("\nPermitRootLogin no\n");
    expect(rootCanLogIn(box), "locked out").toBe(false);
    await waitFor(async () => (await stateOf(box.d, step.transaction_id)) === "reverted");
    expect(inBox(box, ["ls", "/etc/ssh/sshd_config.d"]), "the drop-in is gone").toBe("");
    expect(rootCanLogIn(box), "back in").toBe(true);
    expect(box.sshdPid(), "the same sshd, reloaded by SIGHUP").toBe(pid);
  });
});

describe("SetSshdOption with a 120 s window: apply, confirm, second preview, refusals", () => {
  let b: Box | undefined;
  beforeAll(async () => {
    b = await openBox("b", 120);
  });
  afterAll(async () => { await closeBox(b); });

  it("MaxAuthTries 3: apply writes the drop-in and sshd -T says 3; hostgate confirm keeps it; a second preview has nothing to do", async () => {
    const box = b!;
    const { step } = await applyStep(box.d, "SetSshdOption", { option: "MaxAuthTries", value: "3" });
    expect(step.preview.summary).toBe("Set sshd MaxAuthTries 3 (now 6); create /etc/ssh/sshd_config.d/01-hostgate-maxauthtries.conf and reload sshd");
    expect(sshdT(box)).toMatch(/^maxauthtries 3$/m);
    const c = await runHostgate(["confirm", step.transaction_id, "--socket", box.d.adminSocket], { env: box.d.env });
    expect(c.code, c.stderr).toBe(0);
    expect(await stateOf(box.d, step.transaction_id)).toBe("succeeded");
    expect((await previewOf(box.d, "SetSshdOption", { option: "MaxAuthTries", value: "3" })).summary).toBe("Nothing to do: /etc/ssh/sshd_config.d/01-hostgate-maxauthtries.conf already sets MaxAuthTries 3");
    expect(rootCanLogIn(box)).toBe(true);
  });

  it("refusals: Match, ForceCommand, AuthorizedKeysCommand, an option off the allow-list, a bad value, a value sshd rejects, a drop-in that is a symlink", async () => {
    const d = b!.d;
    const refusal = async (params: Record<string, unknown>): Promise<{ code?: string; message?: string; hint?: string }> => (await previewOf(d, "SetSshdOption", params)).error ?? {};
    expect(await refusal({ option: "Match", value: "User bob" })).toMatchObject({ code: "invalid_params", message: "SetSshdOption refuses Match: a Match block applies options conditionally; SetSshdOption only sets global options." });
    expect((await refusal({ option: "ForceCommand", value: "/bin/sh" })).message).toBe("SetSshdOption refuses ForceCommand: it runs a program on every login.");
    expect((await refusal({ option: "authorizedkeyscommand", value: "/usr/bin/curl x" })).message).toMatch(/refuses authorizedkeyscommand: it runs a program to find keys/);
    const off = await refusal({ option: "Banner", value: "/etc/issue" });
    expect(off.message).toBe("SetSshdOption does not set Banner: it is not on the allow-list.");
    expect(off.hint).toMatch(/^Allowed options: PermitRootLogin, PasswordAuthentication/);
    expect(await refusal({ option: "PasswordAuthentication", value: "maybe" })).toMatchObject({ code: "invalid_params", message: 'PasswordAuthentication does not take the value "maybe".' });
    expect((await refusal({ option: "MaxStartups", value: "10:30" })).code).toBe("invalid_params");
    expect(await refusal({ option: "MaxStartups", value: "10:200:50" })).toMatchObject({ code: "invalid_params", message: "sshd refuses the configuration: command-line line 0: Invalid MaxStartups spec." });
    expect((await refusal({ option: "LogLevel", value: "INFO\nForceCommand x" })).code).toBe("invalid_params");
    symlinkSync("/tmp/elsewhere", dropIn(b!, "loglevel"));
    expect(await refusal({ option: "LogLevel", value: "VERBOSE" })).toMatchObject({ code: "forbidden_path", message: "/etc/ssh/sshd_config.d/01-hostgate-loglevel.conf is a symbolic link; SetSshdOption never writes through a link." });
    expect(existsSync("/tmp/elsewhere")).toBe(false);
  });
});
