// Issue 20 part C: HostMutator and UnitManager over SSH, on a real PID-1 systemd container reached by real sshd.
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import { SshHostMutator } from "../../src/adapters/host-mutator-ssh.ts";
import { sshChangePorts } from "../../src/adapters/ssh-change-ports.ts";
import { sshActionContext } from "../../src/adapters/ssh-context.ts";
import writeFile from "../../src/core/catalogue/actions/write-file.ts";
import { sessionExecOpener, type OpenExec } from "../../src/adapters/remote-exec.ts";
import { bridgeUnitManager, detectRemoteSystemd } from "../../src/adapters/systemd-bridge-ssh.ts";
import { DbusUnitManager } from "../../src/adapters/systemd-dbus.ts";
import { remoteUnitManagers } from "../../src/adapters/systemd-remote.ts";
import { SystemctlUnitManager } from "../../src/adapters/systemd-systemctl-ssh.ts";
import type { Become } from "../../src/core/inventory/become.ts";
import { HostgateError } from "../../src/core/errors.ts";
import type { UnitManager } from "../../src/ports/unit-manager.ts";
import { nspawnSshPrereqs, startNspawnSsh, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { REQUIRE_PEERS, waitFor } from "../peers/proc.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";
import { PEER_UNITS } from "../peers/test-units.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING remote-mutate tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

const sha = (s: string | Buffer): string => createHash("sha256").update(s).digest("hex");

/** The HostgateError code a promise rejects with (fails the test when it resolves). */
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof HostgateError) return e.code;
    throw e;
  }
  throw new Error("expected a rejection");
}

suite("HostMutator and UnitManager over SSH on a PID-1 systemd container", () => {
  let peer: NspawnSshPeer;
  let pool: SshPool;
  const managers: UnitManager[] = [];
  /** An exec opener for `user` on the container, through the shared pool (one connection per login). */
  function login(user: string): Promise<OpenExec> {
    return Promise.resolve(sessionExecOpener(sshSession(pool, { target: { host: peer.ip, port: peer.port, user } })));
  }
  async function mutator(user: string, become: Become): Promise<SshHostMutator> {
    return new SshHostMutator({ open: await login(user), host: "box", login: user, become });
  }
  async function units(user: string, become: Become): Promise<UnitManager> {
    const m = bridgeUnitManager({ open: await login(user), host: "box", login: user, become });
    managers.push(m);
    return m;
  }
  /** A path inside the container as this machine sees it. */
  const inside = (p: string): string => `${peer.container.fileRoot}${p}`;
  const sh = (script: string): string => {
    const r = peer.container.exec(["sh", "-c", script]);
    if (r.status !== 0) throw new Error(`${script} failed in the container`);
    return r.stdout;
  };

  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    peer = await startNspawnSsh();
    pool = new SshPool({ known_hosts: [peer.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000 });
  }, 90_000);
  afterAll(async () => {
    for (const m of managers) await m.close();
    pool?.close();
    await peer?.stop();
  });

  describe("reads over the remote D-Bus (systemd-stdio-bridge over SSH)", () => {
    it("detects the bridge on the container", async () => {
      expect(await detectRemoteSystemd(await login("plain"), "box")).toMatchObject({ kind: "dbus_bridge", detail: expect.stringContaining("systemd-stdio-bridge") as string });
    });

    it("list_units over SSH equals the same call on the container's own bus", async () => {
      const local = new DbusUnitManager({ busAddress: peer.container.busAddress, fileRoot: peer.container.fileRoot });
      managers.push(local);
      const remote = await units("plain", "none");
      const [a, b] = [await remote.listUnits(), await local.listUnits()];
      expect(a.length).toBeGreaterThan(20);
      expect(a).toEqual(b);
      expect(a.find((u) => u.unit === PEER_UNITS.running)).toMatchObject({ active_state: "active", sub_state: "running" });
    });

    it("closing a remote manager gives its bridge channel back to the pool (five bridges in turn on a pool of two slots)", async () => {
      const small = new SshPool({ known_hosts: [peer.knownHosts], host_keys: "strict", default_user: "plain", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000, max_sessions: 2 });
      try {
        const open = sessionExecOpener(sshSession(small, { target: { host: peer.ip, port: peer.port } }));
        for (let i = 0; i < 5; i++) {
          const m = bridgeUnitManager({ open, host: "box", login: "plain", become: "none" });
          expect((await m.getUnit(PEER_UNITS.running)).active_state).toBe("active");
          await m.close();
        }
      } finally {
        small.close();
      }
    }, 20_000);

    /** Pids of the systemd-stdio-bridge processes running in the container. */
    const bridges = (): number[] => sh("for p in /proc/[0-9]*; do [ \"$(cat $p/comm 2>/dev/null)\" = systemd-stdio-b ] && echo ${p#/proc/}; done; true").split("\n").filter(Boolean).map(Number);
    /** A bridge manager whose exec opener records every command it opens a channel for. */
    async function counted(user: string): Promise<{ m: UnitManager; opens: string[] }> {
      const base = await login(user);
      const opens: string[] = [];
      const m = bridgeUnitManager({ open: (c) => { opens.push(c); return base(c); }, host: "box", login: user, become: "none" });
      managers.push(m);
      return { m, opens };
    }

    it("read_unit twice, then reads in parallel: ONE bridge channel serves them all (D-Bus serials multiplex the calls) and the answers equal the container's own bus", async () => {
      const local = new DbusUnitManager({ busAddress: peer.container.busAddress, fileRoot: peer.container.fileRoot });
      managers.push(local);
      const { m, opens } = await counted("plain");
      expect(await m.getUnit(PEER_UNITS.running)).toEqual(await local.getUnit(PEER_UNITS.running));
      expect(await m.getUnit(PEER_UNITS.withDropIn)).toEqual(await local.getUnit(PEER_UNITS.withDropIn));
      const [units, status, timer] = await Promise.all([m.listUnits(), m.getServiceStatus(PEER_UNITS.running), m.getUnit(PEER_UNITS.timer)]);
      expect(units).toEqual(await local.listUnits());
      expect(status).toEqual(await local.getServiceStatus(PEER_UNITS.running));
      expect(timer).toEqual(await local.getUnit(PEER_UNITS.timer));
      expect(opens).toEqual(["systemd-stdio-bridge"]);
    });

    it("a bridge killed on the host is reopened by the next call, which answers (a read lost with its bridge is sent again on the new one, not left to time out)", async () => {
      const before = new Set(bridges());
      const { m, opens } = await counted("plain");
      await m.getUnit(PEER_UNITS.running);
      const mine = bridges().filter((p) => !before.has(p));
      expect(mine).toHaveLength(1);
      sh(`kill -9 ${mine[0]}`);
      const started = Date.now();
      // The call right after the kill answers on a new bridge, well within the 10 s call timeout it used to wait out.
      expect((await m.getUnit(PEER_UNITS.running)).active_state).toBe("active");
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await m.getUnit(PEER_UNITS.running)).active_state).toBe("active");
      expect(opens).toEqual(["systemd-stdio-bridge", "systemd-stdio-bridge"]);
      const now = bridges().filter((p) => !before.has(p));
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(mine[0]);
    }, 20_000);

    it("an idle bridge closes (its process on the host ends, its slot goes back) and the idle connection with it; the next read_unit opens a new bridge and answers; a bridge still within its idle time stays", async () => {
      const before = new Set(bridges());
      const mine = (): number[] => bridges().filter((p) => !before.has(p));
      // The pool closes a connection 300 ms after its last slot is given back.
      const idlePool = new SshPool({ known_hosts: [peer.knownHosts], host_keys: "strict", default_user: "plain", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000, idle_ms: 300 });
      try {
        const base = sessionExecOpener(sshSession(idlePool, { target: { host: peer.ip, port: peer.port } }));
        const opens: string[] = [];
        const open: OpenExec = (c) => { opens.push(c); return base(c); };
        // Control: a bridge within its idle time keeps its channel, so the pool keeps the connection.
        const kept = bridgeUnitManager({ open, host: "box", login: "plain", become: "none", idleMs: 60_000 });
        expect((await kept.getUnit(PEER_UNITS.running)).active_state).toBe("active");
        await new Promise((r) => setTimeout(r, 1000));
        expect(idlePool.connections).toBe(1);
        expect(mine()).toHaveLength(1);
        await kept.close();
        await waitFor("the kept bridge to end after close()", () => mine().length === 0 && idlePool.connections === 0, 10_000);

        const m = bridgeUnitManager({ open, host: "box", login: "plain", become: "none", idleMs: 200 });
        managers.push(m);
        if (!(m instanceof DbusUnitManager)) throw new Error("a login without become reads through one DbusUnitManager");
        const first = await m.getUnit(PEER_UNITS.running);
        expect(first.active_state).toBe("active");
        expect(mine()).toHaveLength(1);
        await waitFor("the idle bridge and its connection to close", () => !m.isConnected && idlePool.connections === 0 && mine().length === 0, 10_000);
        // Idle → closed → the next call reopens (a new connection and a new bridge) and answers the same.
        expect(await m.getUnit(PEER_UNITS.running)).toEqual(first);
        expect(idlePool.connections).toBe(1);
        expect(mine()).toHaveLength(1);
        expect(opens).toEqual(["systemd-stdio-bridge", "systemd-stdio-bridge", "systemd-stdio-bridge"]);
      } finally {
        idlePool.close();
      }
    }, 40_000);

    it("read_unit (definition, state, service status) over SSH equals the container's own bus; files are read on the container (by exec, and through SFTP as composed)", async () => {
      const local = new DbusUnitManager({ busAddress: peer.container.busAddress, fileRoot: peer.container.fileRoot });
      managers.push(local);
      const plain = sshSession(pool, { target: { host: peer.ip, port: peer.port, user: "plain" } });
      const viaSftp = bridgeUnitManager({ open: await login("plain"), sftp: () => plain.sftp(), host: "box", login: "plain", become: "none" });
      managers.push(viaSftp);
      const unit = PEER_UNITS.withDropIn;
      for (const remote of [await units("plain", "none"), viaSftp]) {
        const def = await remote.getDefinition(unit);
        expect(def).toEqual(await local.getDefinition(unit));
        expect(def.text).toContain("ExecStart=/bin/sleep infinity");
        expect(def.text).not.toContain(PEER_UNITS.secret);
        // The 0600 drop-in is shown as a note, not its value, exactly as on the local reader.
        expect(def.text).not.toContain(PEER_UNITS.privateValue);
        expect(def.text).toMatch(/private\.conf\n\(not shown: mode 0600/);
        expect(await remote.getServiceStatus(unit)).toEqual(await local.getServiceStatus(unit));
        expect(await codeOf(remote.getUnit("hg-nonexistent.service"))).toBe("no_such_unit");
      }
    });
  });

  describe("the systemctl fallback (systemd without systemd-stdio-bridge)", () => {
    it("answers list_units, unit state, service status and definitions as the container's own bus does", async () => {
      const local = new DbusUnitManager({ busAddress: peer.container.busAddress, fileRoot: peer.container.fileRoot });
      managers.push(local);
      const text = new SystemctlUnitManager({ open: await login("plain"), host: "box", login: "plain", become: "none" });
      expect(await text.listUnits()).toEqual(await local.listUnits());
      expect(await text.listUnits({ types: ["timer"], states: ["active", "inactive"] })).toEqual(await local.listUnits({ types: ["timer"], states: ["active", "inactive"] }));
      for (const u of [PEER_UNITS.running, PEER_UNITS.timer, PEER_UNITS.escaped, "-.mount"]) expect(await text.getUnit(u)).toEqual(await local.getUnit(u));
      expect(await text.getServiceStatus(PEER_UNITS.running)).toEqual(await local.getServiceStatus(PEER_UNITS.running));
      expect(await text.getDefinition(PEER_UNITS.withDropIn)).toEqual(await local.getDefinition(PEER_UNITS.withDropIn));
      expect(await codeOf(text.getUnit("hg-nonexistent.service"))).toBe("no_such_unit");
      expect(await codeOf(text.getUnit("bad name;id"))).toBe("invalid_unit_name");
    });

    it("detection says which path a host uses: the bridge when present, systemctl when the bridge is gone", async () => {
      const open = await login("plain");
      expect((await detectRemoteSystemd(open, "box")).kind).toBe("dbus_bridge");
      sh("chmod 0 /usr/bin/systemd-stdio-bridge");
      try {
        const found = await detectRemoteSystemd(open, "box");
        expect(found).toEqual({ kind: "systemctl", detail: expect.stringMatching(/^systemd \(systemd 25\d.*\) without systemd-stdio-bridge/) as string });
        const set = remoteUnitManagers({ open, host: "box", login: "plain", become: "none" }, found);
        expect(set.system).toBeInstanceOf(SystemctlUnitManager);
        expect((await set.system.getUnit(PEER_UNITS.running)).active_state).toBe("active");
      } finally {
        sh("chmod 0755 /usr/bin/systemd-stdio-bridge");
      }
    });
  });

  describe("WriteFile through SshHostMutator", () => {
    it("replaces a file as root: content written, owner and mode kept, no temp file left", async () => {
      sh("printf 'old\\n' > /etc/hg-owned.conf && chown deploy:plain /etc/hg-owned.conf && chmod 0640 /etc/hg-owned.conf");
      const m = await mutator("root", "none");
      await m.writeFileAtomic("/etc/hg-owned.conf", "new = 1\n", { expectedSha256: sha("old\n"), expectedRealDir: "/etc" });
      expect(readFileSync(inside("/etc/hg-owned.conf"), "utf8")).toBe("new = 1\n");
      const st = statSync(inside("/etc/hg-owned.conf"));
      expect(st.mode & 0o7777).toBe(0o640);
      expect(sh("stat -c '%U:%G' /etc/hg-owned.conf").trim()).toBe("deploy:plain");
      expect(sh("ls -a /etc").split("\n").filter((f) => f.includes("hostgate"))).toEqual([]);
    });

    it("creates a new file 0644 with expectedSha256 null, and applies an explicit mode", async () => {
      const m = await mutator("root", "none");
      await m.writeFileAtomic("/etc/hg-new.conf", "a\n", { expectedSha256: null });
      expect(statSync(inside("/etc/hg-new.conf")).mode & 0o7777).toBe(0o644);
      await m.writeFileAtomic("/etc/hg-new.conf", "b\n", { expectedSha256: sha("a\n"), mode: 0o600 });
      expect(statSync(inside("/etc/hg-new.conf")).mode & 0o7777).toBe(0o600);
      expect(readFileSync(inside("/etc/hg-new.conf"), "utf8")).toBe("b\n");
    });

    it("a stale expectedSha256 is precondition_failed with both hashes, and the file is unchanged", async () => {
      sh("printf 'current\\n' > /etc/hg-stale.conf");
      const m = await mutator("root", "none");
      const e = await m.writeFileAtomic("/etc/hg-stale.conf", "mine\n", { expectedSha256: sha("what the preview saw\n") }).catch((x: unknown) => x as HostgateError);
      expect(e).toBeInstanceOf(HostgateError);
      expect(e).toMatchObject({ code: "precondition_failed", details: { expected_sha256: sha("what the preview saw\n"), actual_sha256: sha("current\n") } });
      expect(readFileSync(inside("/etc/hg-stale.conf"), "utf8")).toBe("current\n");
      expect(await codeOf(m.writeFileAtomic("/etc/hg-stale.conf", "mine\n", { expectedSha256: null }))).toBe("precondition_failed");
      expect(readFileSync(inside("/etc/hg-stale.conf"), "utf8")).toBe("current\n");
    });

    it("a symlink at the path is refused and neither the link nor its target changes", async () => {
      sh("printf 'target\\n' > /root/hg-target && ln -sf /root/hg-target /etc/hg-link.conf");
      const m = await mutator("root", "none");
      expect(await codeOf(m.writeFileAtomic("/etc/hg-link.conf", "evil\n", {}))).toBe("precondition_failed");
      expect(lstatSync(inside("/etc/hg-link.conf")).isSymbolicLink()).toBe(true);
      expect(readFileSync(inside("/root/hg-target"), "utf8")).toBe("target\n");
    });

    it("a directory that no longer resolves to expectedRealDir is refused; a missing directory is not_found", async () => {
      sh("mkdir -p /srv/hg-real && ln -sfn /srv/hg-real /srv/hg-dir");
      const m = await mutator("root", "none");
      expect(await codeOf(m.writeFileAtomic("/srv/hg-dir/x.conf", "x\n", { expectedRealDir: "/srv/hg-other" }))).toBe("precondition_failed");
      expect(existsSync(inside("/srv/hg-real/x.conf"))).toBe(false);
      await m.writeFileAtomic("/srv/hg-dir/x.conf", "x\n", { expectedRealDir: "/srv/hg-real" });
      expect(readFileSync(inside("/srv/hg-real/x.conf"), "utf8")).toBe("x\n");
      expect(await codeOf(m.writeFileAtomic("/srv/hg-missing/x.conf", "x\n", {}))).toBe("not_found");
    });

    it("S019: a hostile file name (quotes, $(), newline, leading dash) is written as that name and nothing in it runs", async () => {
      // Relative touches: the remote shell's working directory is root's home, then the file's directory.
      const name = "-n 'q\"$(touch hg-pwned)`touch hg-pwned2`\nx;y $HOME *";
      sh("mkdir -p /tmp/hg-hostile");
      const m = await mutator("root", "none");
      await m.writeFileAtomic(`/tmp/hg-hostile/${name}`, "$(id)\n", { expectedSha256: null });
      expect(readFileSync(inside(`/tmp/hg-hostile/${name}`), "utf8")).toBe("$(id)\n");
      for (const d of ["/root", "/tmp/hg-hostile", "/"]) for (const f of ["hg-pwned", "hg-pwned2"]) expect(existsSync(inside(`${d}/${f}`))).toBe(false);
      expect(sh("ls -A /tmp/hg-hostile | wc -l").trim()).toBe("2"); // the name holds one newline: ls prints it on two lines
    });

    it("bad input is a clear invalid_params before anything is sent", async () => {
      const m = await mutator("root", "none");
      for (const p of ["etc/x", "/etc/../x", "/etc/x/", "/"]) expect(await codeOf(m.writeFileAtomic(p, "x", {}))).toBe("invalid_params");
      expect(await codeOf(m.writeFileAtomic("/etc/x", "x", { mode: 0o10000 }))).toBe("invalid_params");
      expect(await codeOf(m.signal(-1, "SIGTERM"))).toBe("invalid_params");
      expect(await codeOf(m.run([], {}))).toBe("invalid_params");
    });
  });

  describe("WriteFile, the catalogue action, on the host's SSH action context (preview from the remote state, apply through the mutator)", () => {
    it("preview → apply over SSH as deploy with sudo; the second preview has nothing left to do; a change after the preview is refused and kept", async () => {
      const route = { target: { host: peer.ip, port: peer.port, user: "deploy" } };
      const ports = await sshChangePorts({ session: sshSession(pool, route), name: "box", login: "deploy", become: "sudo" });
      expect(ports.systemd.kind).toBe("dbus_bridge");
      managers.push(ports.units.system);
      const { ctx } = await sshActionContext({ pool, route, name: "box", logs_readable: { kind: "all" }, mutator: ports.mutator, units: ports.units });
      const params = { path: "/etc/hg-action.conf", content: "listen = 80\n" };
      const first = await writeFile.preview(params, ctx);
      expect(first.current).toMatchObject({ exists: false, real_dir: "/etc" });
      expect(await writeFile.apply(params, ctx, first)).toMatchObject({ path: params.path, created: true, mode: "0644" });
      expect(sh("stat -c '%U %a' /etc/hg-action.conf; cat /etc/hg-action.conf")).toBe("root 644\nlisten = 80\n");
      const again = await writeFile.preview(params, ctx);
      expect(again.text).toContain("(content unchanged)");
      const next = { path: params.path, content: "listen = 8080\n" };
      const planned = await writeFile.preview(next, ctx);
      sh("printf 'listen = 81\\n' > /etc/hg-action.conf");
      expect(await codeOf(writeFile.apply(next, ctx, planned))).toBe("precondition_failed");
      expect(readFileSync(inside("/etc/hg-action.conf"), "utf8")).toBe("listen = 81\n");
      expect((await ctx.units.system.getUnit(PEER_UNITS.running)).active_state).toBe("active");
    });
  });

  describe("become: sudo -n, never a password", () => {
    it("deploy (NOPASSWD rule): canBecome says sudo, and a write into /etc is made as root", async () => {
      const m = await mutator("deploy", "sudo");
      expect(await m.canBecome()).toEqual({ ok: true, via: "sudo", login: "deploy" });
      await m.writeFileAtomic("/etc/hg-sudo.conf", "by sudo\n", { expectedSha256: null });
      expect(sh("stat -c '%U %a' /etc/hg-sudo.conf").trim()).toBe("root 644");
      expect((await m.run(["id", "-u"], { timeoutMs: 10_000 })).stdout).toBe("0\n");
    });

    it("S016: asker (sudo wants a password): canBecome says so before anything runs, and the write fails sudo_password_required with nothing written", async () => {
      const m = await mutator("asker", "sudo");
      expect(await m.canBecome()).toMatchObject({ ok: false, code: "sudo_password_required", login: "asker", message: expect.stringContaining("password") as string });
      const e = await m.writeFileAtomic("/etc/hg-asker.conf", "x\n", {}).catch((x: unknown) => x as HostgateError);
      expect(e).toMatchObject({ code: "sudo_password_required", hint: expect.stringContaining("NOPASSWD") as string });
      expect(existsSync(inside("/etc/hg-asker.conf"))).toBe(false);
      expect(await codeOf(m.signal(1, "SIGCONT"))).toBe("sudo_password_required");
    });

    it("plain without sudo rights or become: a clear error naming the login and what to configure", async () => {
      const none = await mutator("plain", "none");
      expect(await none.canBecome()).toMatchObject({ ok: false, code: "privilege_unavailable", message: expect.stringContaining("not root") as string });
      const e = await none.writeFileAtomic("/etc/hg-plain.conf", "x\n", {}).catch((x: unknown) => x as HostgateError);
      expect(e).toMatchObject({ code: "permission_denied", hint: expect.stringContaining("become: sudo") as string });
      // sudo asks for a password before it says whether the user may run anything (so `sudo -n -l` cannot tell
      // plain from asker either): the answer is the same, and its hint says what rule to add.
      const sudo = await mutator("plain", "sudo");
      expect(await sudo.canBecome()).toMatchObject({ ok: false, code: "sudo_password_required", hint: expect.stringContaining("plain ALL=(root) NOPASSWD") as string });
      expect(await codeOf(sudo.writeFileAtomic("/etc/hg-plain.conf", "x\n", {}))).toBe("sudo_password_required");
      expect(existsSync(inside("/etc/hg-plain.conf"))).toBe(false);
    });
  });

  describe("RestartService and signals", () => {
    it("deploy restarts a unit through a sudo bridge (MainPID changes); reads stay on the unprivileged bridge", async () => {
      const m = await units("deploy", "sudo");
      const before = await m.getUnit(PEER_UNITS.running);
      expect(await m.restartUnit(PEER_UNITS.running)).toEqual({ unit: PEER_UNITS.running, operation: "restart", result: "done" });
      const after = await m.getUnit(PEER_UNITS.running);
      expect(after.active_state).toBe("active");
      expect(after.main_pid).not.toBe(before.main_pid);
    });

    it("asker: list_units works, a restart is sudo_password_required and the unit keeps running", async () => {
      const m = await units("asker", "sudo");
      const pid = (await m.getUnit(PEER_UNITS.running)).main_pid;
      expect((await m.listUnits({ patterns: ["hg-*"] })).length).toBeGreaterThan(0);
      expect(await codeOf(m.restartUnit(PEER_UNITS.running))).toBe("sudo_password_required");
      expect((await m.getUnit(PEER_UNITS.running)).main_pid).toBe(pid);
    });

    it("plain (no become): a restart is refused by the remote manager (permission_denied), nothing restarts", async () => {
      const m = await units("plain", "none");
      const pid = (await m.getUnit(PEER_UNITS.running)).main_pid;
      expect(await codeOf(m.restartUnit(PEER_UNITS.running))).toMatch(/^(permission_denied|backend_error)$/);
      expect((await m.getUnit(PEER_UNITS.running)).main_pid).toBe(pid);
    });

    it("signal: deploy sends SIGTERM to a root process through sudo; a missing pid is not_found", async () => {
      const pid = Number(sh("setsid sleep 300 >/dev/null 2>&1 < /dev/null & echo $!").trim());
      const m = await mutator("deploy", "sudo");
      await m.signal(pid, "SIGTERM");
      await new Promise((r) => setTimeout(r, 300));
      expect(peer.container.exec(["kill", "-0", String(pid)]).status).not.toBe(0);
      expect(await codeOf(m.signal(4_000_000, "SIGTERM"))).toBe("not_found");
    });
  });
});

const noSshd = sshdPrereqs();
(noSshd === null || REQUIRE_PEERS ? describe : describe.skip)("a host without systemd (plain sshd on loopback)", () => {
  let sshd: SshdPeer;
  let pool: SshPool | undefined;
  beforeAll(async () => {
    if (noSshd !== null) throw new Error(`peer unavailable: ${noSshd}`);
    sshd = await startSshd();
  });
  afterAll(async () => {
    pool?.close();
    await sshd?.stop();
  });

  it("detectRemoteSystemd says PID 1 is not systemd, in a sentence doctor can show", async () => {
    const pub = readFileSync(`${sshd.dir}/host_key.pub`, "utf8").trim().split(" ").slice(0, 2).join(" ");
    writeFileSync(`${sshd.dir}/known_hosts`, `[127.0.0.1]:${sshd.port} ${pub}\n`);
    pool = new SshPool({ known_hosts: [`${sshd.dir}/known_hosts`], host_keys: "strict", default_user: "root", default_identity_files: [sshd.clientKey], connect_timeout_ms: 10_000 });
    const open = sessionExecOpener(sshSession(pool, { target: { host: "127.0.0.1", port: sshd.port } }));
    const found = await detectRemoteSystemd(open, "loopback");
    expect(found).toEqual({ kind: "none", detail: "PID 1 on loopback is not systemd (no /run/systemd/system)" });
    const set = remoteUnitManagers({ open, host: "loopback", login: "root", become: "none" }, found);
    const e = await set.system.listUnits().catch((x: unknown) => x as HostgateError);
    expect(e).toMatchObject({ code: "unavailable", message: expect.stringContaining("PID 1 on loopback is not systemd") as string });
  });
});
