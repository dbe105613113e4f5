// `hostgate daemon install` for real: in a container booted with systemd (PID 1), with the host's node
// bind-mounted read-only at its path and this checkout at /opt/hostgate (a fixed path: a checkout under /tmp
// would be hidden from the service by the container's own /tmp, and one under /home or /root by ProtectHome). The unit is written, verified, enabled and started;
// the agent socket answers a member of the hostgate group and refuses anyone else; `hostgate doctor` runs
// against it; a plan is approved through the admin socket with `hostgate approve` on a pty and executed;
// the vsock proxy unit forwards (through a Unix listener, since vsock cannot loop back here); uninstall
// reverses everything but the state.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../src/ipc/protocol.ts";
import { nspawnPrereqs, startNspawn, type NspawnPeer } from "../peers/nspawn.ts";
import { REQUIRE_PEERS, waitFor } from "../peers/proc.ts";

const ROOT = resolve(import.meta.dirname, "../..");
/** Where the checkout appears inside the container, and the launcher there. */
const MOUNT = "/opt/hostgate";
const BIN = join(MOUNT, "bin", "hostgate.js");
const NODE = "/usr/bin/node";
const missing = nspawnPrereqs() ?? (existsSync(NODE) ? null : `the container needs node at ${NODE}`) ?? (existsSync(join(ROOT, "dist", "hostgate.js")) ? null : "no build in dist/ (npm run build)");
if (missing && REQUIRE_PEERS) throw new Error(`service test: ${missing}`);
if (missing) console.warn(`SKIP service test: ${missing}`);

let peer: NspawnPeer;

/** Runs argv in the container, optionally as a user (setpriv with that user's groups) and with stdin. */
function inside(argv: string[], opts: { user?: string; env?: Record<string, string>; input?: string } = {}): { status: number | null; stdout: string; stderr: string } {
  const env = Object.entries({ HOME: "/tmp", PATH: "/usr/sbin:/usr/bin:/sbin:/bin", ...opts.env }).map(([k, v]) => `${k}=${v}`);
  const asUser = opts.user ? ["setpriv", `--reuid=${opts.user}`, `--regid=${opts.user}`, "--init-groups"] : [];
  const r = spawnSync("nsenter", ["-t", String(peer.leaderPid), "-a", "env", "-i", ...env, ...asUser, ...argv], { encoding: "utf8", timeout: 60_000, input: opts.input ?? "" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** One daemon-protocol call over a socket inside the container, as `user`. */
function call(user: string, socket: string, method: string, params?: unknown): { ok: boolean; result?: unknown; error?: { code: string; message: string } } | { connect_error: string } {
  const script = `const s=require("net").createConnection(process.argv[1]);let b="";s.on("error",e=>{console.log(JSON.stringify({connect_error:e.code}));process.exit(0)});s.on("connect",()=>s.write(process.argv[2]+"\\n"));s.on("data",d=>{b+=d;if(b.includes("\\n")){console.log(b.split("\\n")[0]);process.exit(0)}});`;
  const req = JSON.stringify({ v: PROTOCOL_VERSION, id: 1, method, ...(params === undefined ? {} : { params }) });
  const r = inside([NODE, "-e", script, socket, req], { user });
  return JSON.parse(r.stdout.trim() || `{"connect_error":${JSON.stringify(r.stderr)}}`) as never;
}

beforeAll(async () => {
  if (missing) return;
  peer = await startNspawn({ nspawnArgs: [`--bind-ro=${NODE}`, `--bind-ro=${ROOT}:${MOUNT}`] });
  for (const argv of [["useradd", "-m", "alice"], ["useradd", "-m", "bob"]]) expect(inside(argv).status).toBe(0);
}, 120_000);

afterAll(async () => {
  if (!peer) return;
  // The daemon keeps its checkpoint copy append-only (chattr +a): clear that so the rootfs copy can be removed.
  spawnSync("chattr", ["-R", "-a", `${peer.fileRoot}/var/log/hostgate`]);
  await peer.stop();
});

describe.skipIf(missing !== null)("hostgate daemon install (systemd in a container)", () => {
  it("installs, verifies, starts; the group and the sockets are as designed", async () => {
    const r = inside([NODE, BIN, "daemon", "install"]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/✓ create group hostgate/);
    expect(r.stdout).toMatch(/✓ systemd-analyze verify/);
    expect(r.stdout).toMatch(/✓ systemctl enable --now hostgate.service/);
    expect(r.stdout).toMatch(/usermod -aG hostgate <user>/);
    await waitFor("hostgate.service active and its agent socket", () => inside(["test", "-S", "/run/hostgate/agent.sock"]).status === 0, 30_000)
      .catch((e: unknown) => { throw new Error(`${(e as Error).message}\n${inside(["journalctl", "-u", "hostgate", "--no-pager", "-n", "30"]).stdout}`); });
    expect(inside(["systemctl", "is-active", "hostgate.service"]).stdout.trim()).toBe("active");
    expect(inside(["stat", "-c", "%U:%G %a", "/run/hostgate", "/run/hostgate/agent.sock", "/run/hostgate/admin.sock", "/var/lib/hostgate"]).stdout.trim().split("\n"))
      // The admin socket is root's alone: the daemon takes group root at start (files it creates are root:root, not a
      // GID a purge leaves bare), and only the agent socket gets the unit's group back.
      .toEqual(["root:hostgate 755", "root:hostgate 660", "root:root 600", "root:hostgate 700"]);
    const log = inside(["lsattr", "-d", "/var/log/hostgate"]);
    expect(log.status, log.stderr).toBe(0);
    const unit = readFileSync(`${peer.fileRoot}/etc/systemd/system/hostgate.service`, "utf8");
    expect(unit).toMatch(/^NoNewPrivileges=yes$/m);
    expect(unit).toMatch(/^# ProtectSystem=strict would make .*\n(#.*\n)*ProtectSystem=no$/m);
    // A second install is an update, not an error.
    expect(inside([NODE, BIN, "daemon", "install"]).status).toBe(0);
  });

  it("the agent socket answers a member of hostgate and refuses anyone else", () => {
    expect(inside(["usermod", "-aG", "hostgate", "alice"]).status).toBe(0);
    const alice = call("alice", "/run/hostgate/agent.sock", "describe");
    expect(alice).toMatchObject({ ok: true });
    expect(call("bob", "/run/hostgate/agent.sock", "describe")).toEqual({ connect_error: "EACCES" });
    // Nobody but root reaches the admin socket, members of hostgate included.
    expect(call("alice", "/run/hostgate/admin.sock", "show", { transaction_id: "x" })).toEqual({ connect_error: "EACCES" });
  });

  it("hostgate doctor against the service: separated approval, exit 0; refused for a non-member, exit 1", () => {
    const ok = inside([NODE, BIN, "doctor", "--no-clients"], { user: "alice", env: { HOSTGATE_SOCKET: "/run/hostgate/agent.sock" } });
    expect(ok.stdout).toMatch(/✓ approval separation: separated: the front \(uid \d+\) cannot open the admin socket/);
    expect(ok.stdout).toMatch(/✓ systemd backend: dbus/);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    const bob = inside([NODE, BIN, "doctor", "--no-clients"], { user: "bob", env: { HOSTGATE_SOCKET: "/run/hostgate/agent.sock" } });
    expect(bob.status).toBe(1);
    expect(bob.stdout).toMatch(/✗ daemon reachable: .*EACCES[\s\S]*fix: .*group hostgate/);
  });

  it("a plan from a member is approved by root with hostgate approve on a pty, then executed", () => {
    const plan = call("alice", "/run/hostgate/agent.sock", "plan", { steps: [{ action: "WriteFile", params: { path: "/etc/hostgate-test.txt", content: "approved\n" } }] }) as { ok: true; result: { ok: true; value: { plan_id: string; steps: { transaction_id: string; action_name: string; params: Record<string, unknown> }[] } } };
    expect(plan.result.ok).toBe(true);
    const step = plan.result.value.steps[0]!;
    // `approve` needs a terminal: script(1) gives it one. A write under /etc is high risk: the human types the
    // plan id's first 8 characters (one approval for the whole plan).
    const planId = plan.result.value.plan_id;
    const approve = inside(["script", "-qec", `${NODE} ${BIN} approve ${planId}`, "/dev/null"], { input: `${planId.slice(0, 8)}\n` });
    const receipt = /hgr_[A-Za-z0-9_-]+/.exec(approve.stdout)?.[0];
    expect(receipt, approve.stdout + approve.stderr).toBeDefined();
    const exec = call("alice", "/run/hostgate/agent.sock", "execute", { steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params, approval_receipt: receipt }] }) as { ok: true; result: { ok: boolean } };
    expect(exec.result.ok, JSON.stringify(exec)).toBe(true);
    expect(readFileSync(`${peer.fileRoot}/etc/hostgate-test.txt`, "utf8")).toBe("approved\n");
  });

  it("--vsock: the socket unit listens and the proxy service forwards to the agent socket", async () => {
    const port = 20000 + (process.pid % 20000);
    const r = inside([NODE, BIN, "daemon", "install", "--vsock", String(port)]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(`${peer.fileRoot}/etc/systemd/system/hostgate-vsock.socket`, "utf8")).toContain(`ListenStream=vsock::${port}`);
    const listening = inside(["systemctl", "is-active", "hostgate-vsock.socket"]).stdout.trim();
    // A vsock listener needs a vsock transport in the kernel; this VM has one, but nothing here can connect
    // to it (no loopback transport). So the proxy is exercised through an extra Unix listener on the same
    // socket unit; the vsock hop itself is not tested here.
    expect(["active", "failed"]).toContain(listening);
    console.info(`hostgate-vsock.socket with ListenStream=vsock::${port}: ${listening}`);
    const dropin = `${peer.fileRoot}/etc/systemd/system/hostgate-vsock.socket.d`;
    mkdirSync(dropin, { recursive: true });
    writeFileSync(join(dropin, "test.conf"), "[Socket]\nListenStream=/run/hostgate-vsock-test.sock\nSocketMode=0666\n");
    expect(inside(["systemctl", "daemon-reload"]).status).toBe(0);
    expect(inside(["systemctl", "restart", "hostgate-vsock.socket"]).status).toBe(0);
    await waitFor("the proxy's test listener", () => inside(["test", "-S", "/run/hostgate-vsock-test.sock"]).status === 0, 10_000);
    // bob is not in hostgate: through the proxy he has what a vsock peer has, the agent methods.
    expect(call("bob", "/run/hostgate-vsock-test.sock", "describe")).toMatchObject({ ok: true });
    expect(call("bob", "/run/hostgate-vsock-test.sock", "approve", { transaction_id: "x" })).toMatchObject({ ok: false, error: { code: "forbidden_method" } });
  });

  it("uninstall stops and removes the units and the group, keeps the state", () => {
    const r = inside([NODE, BIN, "daemon", "uninstall"]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    for (const u of ["hostgate.service", "hostgate-vsock.socket", "hostgate-vsock.service"]) expect(existsSync(`${peer.fileRoot}/etc/systemd/system/${u}`)).toBe(false);
    expect(inside(["systemctl", "is-active", "hostgate.service"]).stdout.trim()).not.toBe("active");
    expect(inside(["getent", "group", "hostgate"]).status).not.toBe(0);
    expect(inside(["test", "-d", "/var/lib/hostgate"]).status).toBe(0);
    expect(inside(["test", "-d", "/var/log/hostgate"]).status).toBe(0);
    expect(r.stdout).toMatch(/state kept/);
  });
});
