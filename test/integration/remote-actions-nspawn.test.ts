/**
 * Issue 24 part 2: mutating catalogue actions end to end on an SSH host. A real PID-1 systemd in an nspawn
 * container, reached over real sshd as `deploy` with `become: sudo` (a static inventory host of a composed
 * daemon; `box-root` is the same container as a root login): each step is planned, approved (test approver) and executed through the daemon, the container's own
 * tools agree (`sysctl -n`, `getent`, `chage`, `passwd -S`, `ssh-keygen -lf`), and a second preview has nothing
 * to do. Refusals: LockUser of root, CreateUser of an account that exists with another shell, and SetSysctl
 * where the container's /proc/sys is mounted read-only (found here: the write failed only at execute before).
 * Issue 24/20 gaps: previews read through the host's preview probe (as root through `sudo -n` for what deploy
 * cannot read), files are removed over SSH (SetSysctl's drop-in on revert, RemoveSwapFile, DeleteLogFile,
 * TruncateLogFile), and a file changed between approve and execute is refused plan_changed.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComposedDaemon } from "../../src/daemon/compose.ts";
import { nspawnSshPrereqs, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { startNspawnLab, type NspawnLab } from "../helpers/nspawn-lab.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";
import { revertDue } from "../../src/app/revert.ts";
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

  type Result = { status: string; output?: unknown; error?: Failure | null; confirm?: { state: string } };

  /** plan → approve of one step; `execute` runs it (whatever changed in between). */
  async function approved(action: string, params: Record<string, unknown>, host = "box"): Promise<{ step: Step; execute: () => Promise<Result> }> {
    const { step, error } = await plan(action, params, host);
    if (!step) throw new Error(`plan ${action} refused: ${error?.code} ${error?.message}`);
    const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: step.transaction_id });
    if (!a.ok) throw new Error(a.error.message);
    const execute = async (): Promise<Result> => {
      const x = await agent().call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: action, params: step.params, approval_receipt: a.value.receipt }] });
      if (!x.ok) throw new Error(`execute ${action}: ${x.error.code} ${x.error.message}`);
      return x.value.results[0] as Result;
    };
    return { step, execute };
  }

  /** plan → approve → execute of one step; the execute result. */
  async function run(action: string, params: Record<string, unknown>, host = "box"): Promise<{ step: Step; result: Result }> {
    const { step, execute } = await approved(action, params, host);
    return { step, result: await execute() };
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

  it("CreateUser → LockUser → AddAuthorizedKey over SSH: getent, chage, passwd -S and ssh-keygen -lf in the container agree; second previews have nothing to do, as deploy with sudo (the preview reads /etc/shadow and the 0700 ~/.ssh as root) and as a root login", async () => {
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
    // deploy cannot read /etc/shadow itself; the preview reads it as root through sudo -n, so both logins see the
    // lock and have nothing left to do (plan answers nothing_to_do).
    for (const host of ["box", "box-root"]) {
      const again = await plan("LockUser", { name: user }, host);
      expect(again.summary, host).toMatch(new RegExp(`^Lock user ${user}: nothing to do \\(already expired`));
      expect(again.error?.code, host).toBe("nothing_to_do");
    }

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
    // deploy cannot look into the user's 0700 ~/.ssh itself; the preview reads it as root, so a second add is
    // nothing to do for both logins. The direct read-only tool stays at the login's privilege: as deploy it cannot
    // read the file (it says so in `skipped`), as root it lists the key.
    expect(inBox(["stat", "-c", "%a", `/home/${user}/.ssh`]).trim()).toBe("700");
    for (const host of ["box", "box-root"]) expect((await plan("AddAuthorizedKey", { user, key: pub }, host)).summary, host).toBe(`Add key ${fp} for ${user}: nothing to do (already authorized)`);
    type Keys = { accounts: { user: string; keys: { fingerprint: string }[]; skipped: { file: string; reason: string }[] }[] };
    const listed = async (host: string): Promise<Keys["accounts"][number] | undefined> => {
      const q = await agent().call("query", { action: "ListAuthorizedKeys", args: { user }, host });
      if (!q.ok) throw new Error(`${q.error.code} ${q.error.message}`);
      return (q.value.data as Keys).accounts.find((a) => a.user === user);
    };
    expect((await listed("box-root"))?.keys.map((k) => k.fingerprint)).toEqual([fp]);
    const asDeploy = await listed("box");
    expect(asDeploy?.keys ?? []).toEqual([]);

    // A file changed between approve and execute: the re-computed preview differs, plan_changed, nothing written.
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "second@test", "-f", join(work, "k2")]);
    const second = await approved("AddAuthorizedKey", { user, key: readFileSync(join(work, "k2.pub"), "utf8").trim() });
    expect(second.step.preview.summary).toMatch(/^Authorize key SHA256:\S+ \(ssh-ed25519, second@test\) for /);
    inBox(["sh", "-c", `echo '# edited by hand' >> /home/${user}/.ssh/authorized_keys`]);
    const refused = await second.execute();
    expect(refused).toMatchObject({ status: "refused", error: { code: "plan_changed" } });
    expect(inBox(["cat", `/home/${user}/.ssh/authorized_keys`])).not.toContain("second@test");
    expect(inBox(["tail", "-n", "1", `/home/${user}/.ssh/authorized_keys`])).toBe("# edited by hand\n");
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

  /** The preview the approver is shown (`hostgate approve`), which holds what the model's view leaves out. */
  async function approverView(transactionId: string): Promise<{ summary: string; text: string }> {
    const shown = await d.service.admin("human").call("show", { transaction_id: transactionId });
    if (!shown.ok) throw new Error(shown.error.message);
    return shown.value.steps[0]!.preview;
  }

  const exists = (path: string): boolean => inBox(["sh", "-c", `test -e '${path}' && echo yes || echo no`]).trim() === "yes";

  it("SetSysctl with its drop-in, then the drop-in removed over SSH (the net.* change reverted unconfirmed), as deploy with sudo and as a root login: /etc/sysctl.d in the container agrees", async () => {
    // /proc/sys/net belongs to the network namespace this test created for the container: its mount is made
    // writable so the read-only check passes (/proc/sys is made private first, or the bind would also propagate,
    // read-only, under /proc). The container has no CAP_NET_ADMIN, so the live value cannot change: the step sets
    // the value the key already has, and only its drop-in is written, then removed by the revert.
    inBox(["sh", "-c", "mount --make-private /proc/sys && mount --bind /proc/sys/net /proc/sys/net && mount -o remount,bind,rw /proc/sys/net"]);
    const key = "net.ipv4.ip_forward";
    const file = `/etc/sysctl.d/90-hostgate-${key}.conf`;
    for (const host of ["box", "box-root"]) {
      const value = inBox(["sysctl", "-n", key]).trim();
      const { step, result } = await run("SetSysctl", { key, value }, host);
      expect(step.preview.summary, host).toBe(`Set ${key}: ${value} → ${value}; create ${file}`);
      expect(result, JSON.stringify(result.error)).toMatchObject({ status: "succeeded", confirm: { state: "awaiting_confirm" } });
      expect(inBox(["cat", file])).toBe(`# Set by hostgate (SetSysctl). Remove this file to stop applying it at boot.\n${key} = ${value}\n`);
      expect(inBox(["stat", "-c", "%U %a", file]).trim()).toBe("root 644");
      expect((await plan("SetSysctl", { key, value }, host)).summary).toBe(`Nothing to do: ${key} is already ${value} (and ${file} says so)`);
      const outcomes = await revertDue(d.service.deps, { restart: true });
      expect(outcomes).toEqual([{ transaction_id: step.transaction_id, state: "reverted", error: null }]);
      expect(exists(file), host).toBe(false);
      expect(inBox(["sysctl", "-n", key]).trim()).toBe(value);
    }
  });

  it("RemoveSwapFile over SSH as deploy: the /etc/fstab line is dropped and the file deleted (its identity pinned by the preview); AddSwapFile is previewed only: swap is not namespaced, so swapon here would add swap to the machine running the tests", async () => {
    const path = "/var/hg-swap";
    inBox(["sh", "-c", `head -c 1048576 /dev/zero > ${path} && chmod 600 ${path} && echo '${path} none swap sw 0 0' >> /etc/fstab`]);
    const { step, result } = await run("RemoveSwapFile", { path });
    expect(step.preview.summary).toBe(`Remove swap file ${path}: drop its /etc/fstab line, delete the file`);
    expect(result.status, JSON.stringify(result.error)).toBe("succeeded");
    expect(inBox(["cat", "/etc/fstab"])).not.toContain(path);
    expect(exists(path)).toBe(false);
    expect((await plan("RemoveSwapFile", { path })).summary).toBe(`Remove swap file ${path}: nothing to do (not active, not in /etc/fstab, absent)`);
    const add = await plan("AddSwapFile", { path, size_mib: 16 });
    expect(add.step?.preview.summary, add.error?.message).toMatch(/^Add a 16 MiB swap file \/var\/hg-swap on \/\S* \(ext4\), active now and at boot$/);
    const r = await d.service.admin("human", testApprover()).call("reject", { transaction_id: add.step!.transaction_id });
    expect(r.ok).toBe(true);
    expect(exists(path)).toBe(false);
  });

  it("DeleteLogFile and TruncateLogFile over SSH as deploy (identity from stat -c): the container's stat agrees; a file replaced between approve and execute is refused plan_changed and stays", async () => {
    inBox(["sh", "-c", "mkdir -p /var/log/hge && head -c 5000 /dev/zero > /var/log/hge/app.log.1 && printf 'a\\nb\\n' > /var/log/hge/app.log && chmod 640 /var/log/hge/app.log"]);
    const [dev, ino] = inBox(["stat", "-c", "%d %i", "/var/log/hge/app.log.1"]).trim().split(" ");
    const pending = await approved("DeleteLogFile", { path: "/var/log/hge/app.log.1" });
    expect(pending.step.preview.summary).toBe("Delete /var/log/hge/app.log.1"); // the model's view
    const seen = await approverView(pending.step.transaction_id);
    expect(seen.summary).toMatch(/^Delete \/var\/log\/hge\/app\.log\.1 \(4\.9 KiB, last written \d{4}-/);
    expect(seen.text).toContain(`file: inode ${ino} on device ${dev}, owner uid 0, mode 0644`);
    expect(await pending.execute()).toMatchObject({ status: "succeeded", output: { freed_bytes: 5000 } });
    expect(exists("/var/log/hge/app.log.1")).toBe(false);
    const again = await plan("DeleteLogFile", { path: "/var/log/hge/app.log.1" });
    expect(again.error).toBeUndefined();
    expect((await approverView(again.step!.transaction_id)).summary).toBe("CANNOT BE APPLIED: /var/log/hge/app.log.1 does not exist. Reject this step; execute would refuse it.");

    const live = inBox(["stat", "-c", "%i", "/var/log/hge/app.log"]).trim();
    const tr = await run("TruncateLogFile", { path: "/var/log/hge/app.log" });
    expect(tr.result, JSON.stringify(tr.result.error)).toMatchObject({ status: "succeeded", output: { freed_bytes: 4 } });
    expect(inBox(["stat", "-c", "%s %i %a", "/var/log/hge/app.log"]).trim()).toBe(`0 ${live} 640`);

    for (const host of ["box", "box-root"]) {
      inBox(["sh", "-c", "printf 'old\\n' > /var/log/hge/old.log.2"]);
      const pending = await approved("DeleteLogFile", { path: "/var/log/hge/old.log.2" }, host);
      inBox(["sh", "-c", "mv /var/log/hge/old.log.2 /var/log/hge/moved && printf 'new\\n' > /var/log/hge/old.log.2"]);
      expect(await pending.execute(), host).toMatchObject({ status: "refused", error: { code: "plan_changed" } });
      expect(inBox(["cat", "/var/log/hge/old.log.2"])).toBe("new\n");
    }
  });
});
