/**
 * Issue 24 part 2: mutating catalogue actions end to end on an SSH host. A real PID-1 systemd in an nspawn
 * container, reached over real sshd as `deploy` with `become: sudo` (a static inventory host of a composed
 * daemon; `box-root` is the same container as a root login): each step is planned, approved (test approver) and executed through the daemon, the container's own
 * tools agree (`sysctl -n`, `getent`, `chage`, `passwd -S`, `ssh-keygen -lf`), and a second preview has nothing
 * to do. Refusals: LockUser of root, CreateUser of an account that exists with another shell, and SetSysctl
 * where the container's /proc/sys is mounted read-only (found here: the write failed only at execute before).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComposedDaemon } from "../../src/daemon/compose.ts";
import { nspawnSshPrereqs, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { startNspawnLab, type NspawnLab } from "../helpers/nspawn-lab.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";
import { nothingToDoSummary } from "../helpers/plan-steps.ts";
import { testApprover } from "../support/approver.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING remote-actions-nspawn tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

type Step = { transaction_id: string; params: Record<string, unknown>; preview: { summary: string; text: string; confirm?: { window_s: number } } };
type Failure = { code: string; message: string; hint?: string };

suite("mutating actions on an nspawn systemd host over SSH as deploy with sudo (issue 24, part 2)", () => {
  let peer: NspawnSshPeer;
  let work: string;
  let d: ComposedDaemon;
  const user = `hgx${process.pid % 100000}`;

  let lab: NspawnLab | undefined;
  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    lab = await startNspawnLab("hg-actions-nspawn-", (p) => [{ name: "box-root", address: p.ip, port: p.port, user: "root" }]);
    ({ peer, d, work } = lab);
  }, 120_000);
  afterAll(async () => { await lab?.stop(); });

  const agent = () => d.service.agent("nspawn");
  const inBox = (argv: string[]): string => {
    const r = peer.container.exec(argv);
    if (r.status !== 0) throw new Error(`${argv.join(" ")} failed in the container (${r.status})`);
    return r.stdout;
  };

  /** Plans one step on the container: the step, or the refusal. */
  async function plan(action: string, params: Record<string, unknown>, host = "box"): Promise<{ step?: Step; error?: Failure; summary?: string }> {
    const p = await agent().call("plan", { host, steps: [{ action, params }] });
    if (!p.ok) return { error: p.error, summary: nothingToDoSummary(p.error) };
    return { step: p.value.steps[0] as unknown as Step, summary: (p.value.steps[0] as unknown as Step).preview.summary };
  }

  /** plan → approve → execute of one step; the execute result. */
  async function run(action: string, params: Record<string, unknown>): Promise<{ step: Step; result: { status: string; output?: unknown; error?: Failure | null; confirm?: { state: string } } }> {
    const { step, error } = await plan(action, params);
    if (!step) throw new Error(`plan ${action} refused: ${error?.code} ${error?.message}`);
    const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: step.transaction_id });
    if (!a.ok) throw new Error(a.error.message);
    const x = await agent().call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: action, params: step.params, approval_receipt: a.value.receipt }] });
    if (!x.ok) throw new Error(`execute ${action}: ${x.error.code} ${x.error.message}`);
    return { step, result: x.value.results[0] as { status: string; output?: unknown; error?: Failure | null; confirm?: { state: string } } };
  }

  it("SetSysctl where the container's /proc/sys/net is mounted read-only: refused at plan, saying why, before anyone approves (the write would fail)", async () => {
    const mount = inBox(["findmnt", "-n", "-o", "OPTIONS", "--target", "/proc/sys/net/ipv4/ip_forward"]).trim();
    expect(mount.split(",")).toContain("ro");
    const before = inBox(["sysctl", "-n", "net.ipv4.ip_forward"]).trim();
    const { error } = await plan("SetSysctl", { key: "net.ipv4.ip_forward", value: before === "1" ? "0" : "1" });
    expect(error).toMatchObject({ code: "invalid_params", message: expect.stringMatching(/^net\.ipv4\.ip_forward cannot be set on this host: \/proc\/sys(\/net)? is mounted read-only here \(as in a container\)\.$/) as unknown });
    expect(peer.container.exec(["sh", "-c", `echo ${before} > /proc/sys/net/ipv4/ip_forward`]).status).not.toBe(0);
    expect(inBox(["sysctl", "-n", "net.ipv4.ip_forward"]).trim()).toBe(before);
  });

  it("CreateUser → LockUser → AddAuthorizedKey over SSH: getent, chage, passwd -S and ssh-keygen -lf in the container agree; second previews have nothing to do (LockUser's and AddAuthorizedKey's read through a root login: a sudo login's preview cannot read /etc/shadow or a 0700 ~/.ssh)", async () => {
    const created = await run("CreateUser", { name: user, shell: "/bin/sh" });
    expect(created.step.preview.summary).toBe(`Create user ${user} (shell /bin/sh, home /home/${user}, created from /etc/skel)`);
    expect(created.result.status, JSON.stringify(created.result.error)).toBe("succeeded");
    const pw = inBox(["getent", "passwd", user]).trim().split(":");
    expect([pw[0], pw[5], pw[6]]).toEqual([user, `/home/${user}`, "/bin/sh"]);
    expect((await plan("CreateUser", { name: user, shell: "/bin/sh" })).summary).toMatch(new RegExp(`^Create user ${user}: nothing to do \\(it exists with that shell and home, uid ${pw[2]}\\)$`));

    const locked = await run("LockUser", { name: user });
    expect(locked.result.status, JSON.stringify(locked.result.error)).toBe("succeeded");
    expect(inBox(["passwd", "-S", user]).split(" ")[1]).toBe("L");
    expect(inBox(["chage", "-l", user])).toMatch(/^Account expires\s*:\s*(?!never)/m);
    // deploy cannot read /etc/shadow and a preview never uses sudo: it says the lock state is unknown to it; a root
    // login reads the shadow file and has nothing left to do.
    expect((await plan("LockUser", { name: user })).step?.preview.text).toContain("The login user cannot read /etc/shadow here, so the current lock state is unknown");
    expect((await plan("LockUser", { name: user }, "box-root")).summary).toMatch(new RegExp(`^Lock user ${user}: nothing to do \\(already expired`));

    const keyFile = join(work, "k");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "x24@test", "-f", keyFile]);
    const pub = readFileSync(`${keyFile}.pub`, "utf8").trim();
    const fp = execFileSync("ssh-keygen", ["-lf", `${keyFile}.pub`], { encoding: "utf8" }).split(" ")[1]!;
    const added = await run("AddAuthorizedKey", { user, key: pub });
    expect(added.step.preview.summary).toBe(`Authorize key ${fp} (ssh-ed25519, x24@test) for ${user}`);
    expect(added.result).toMatchObject({ status: "succeeded", output: { user, path: `/home/${user}/.ssh/authorized_keys`, changed: true, keys: 1, fingerprint: fp } });
    const authorized = `${peer.container.fileRoot}/home/${user}/.ssh/authorized_keys`;
    writeFileSync(join(work, "authorized"), readFileSync(authorized));
    expect(execFileSync("ssh-keygen", ["-lf", join(work, "authorized")], { encoding: "utf8" }).split(" ")[1]).toBe(fp);
    const owner = inBox(["stat", "-c", "%U %a", `/home/${user}/.ssh/authorized_keys`]).trim();
    expect(owner).toBe(`${user} 600`);
    // KNOWN GAP (reported): a preview reads as the login user, never through sudo, and deploy cannot look into
    // another user's 0700 ~/.ssh, so a second key for this user cannot be planned as deploy; a root login can.
    expect((await plan("AddAuthorizedKey", { user, key: pub })).error?.code).toBe("permission_denied");
    expect((await plan("AddAuthorizedKey", { user, key: pub }, "box-root")).summary).toBe(`Add key ${fp} for ${user}: nothing to do (already authorized)`);
  });

  it("refusals before anything is planned: LockUser root, and CreateUser of an existing account with another shell", async () => {
    const rootBefore = inBox(["passwd", "-S", "root"]);
    const root = await plan("LockUser", { name: "root" });
    expect(root.error?.code).toBe("invalid_params");
    expect(root.error?.message).toMatch(/^hostgate does not lock root: /);
    expect(inBox(["passwd", "-S", "root"])).toBe(rootBefore);
    const taken = await plan("CreateUser", { name: "deploy", shell: "/bin/bash" });
    expect(taken.error).toMatchObject({ code: "invalid_params" });
    expect(taken.error?.message).toMatch(/^A user named deploy already exists .*CreateUser never changes an existing account\.$/);
    expect(inBox(["getent", "passwd", "deploy"]).trim().split(":")[6]).toBe("/bin/sh");
  });
});
