/**
 * Remote systemd and mutations over SSH (issue 20 part C). Run as root: `npx tsx bench/remote-systemd.ts`. Boots
 * the SSH-reachable PID-1 systemd container (test/peers/nspawn-ssh.ts) and prints ONE JSON object on stdout,
 * p50/p90 over warm connections of the shared pool (first calls dropped):
 * - get_unit / read_unit_definition / list_units: over the remote D-Bus (systemd-stdio-bridge on one channel;
 *   unit files through the connection's SFTP channel, as composed), the same with unit files read by one exec
 *   each (`remote_dbus_exec_files`: how it was before), over the systemctl fallback, and on the container's own
 *   bus from this machine (`local`, the same adapter on a Unix socket: what the call costs without SSH); target
 *   read_unit over the remote D-Bus ≤ 10 ms;
 * - openssh_controlmaster_show: `ssh -S <ControlMaster> host systemctl show -p ActiveState unit` (the reference);
 * - read_unit_split: where a warm read_unit goes (ping = transport alone, one property, GetAll of the Unit
 *   properties, the whole getUnit), remote bridge next to the container's own bus, three interleaved rounds;
 * - bridge_connect: a fresh bridge's first call (channel + relay socket + D-Bus Hello), warm SSH connection;
 * - bridge_reopen_after_idle: a read_unit after the bridge closed itself for idleness (idleMs 100 here; 20 s as
 *   composed), with the SSH connection still warm (`warm_connection`) and after the pool closed it too
 *   (`cold_connection`: dial + bridge), next to a read_unit on the open bridge (`open_bridge`), interleaved;
 * - write_file: SshHostMutator.writeFileAtomic with a precondition (one fixed script), as root and via sudo -n;
 * - can_become: the preview's privilege check (`sudo -n id -u`);
 * - load_average, and `errors` (section → message) when a section failed: the others are still printed.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SshPool } from "../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../src/adapters/exec-ssh/session.ts";
import { SshHostMutator } from "../src/adapters/host-mutator-ssh.ts";
import { sessionExecOpener } from "../src/adapters/remote-exec.ts";
import { bridgeUnitManager } from "../src/adapters/systemd-bridge-ssh.ts";
import { DbusUnitManager } from "../src/adapters/systemd-dbus.ts";
import { SystemctlUnitManager } from "../src/adapters/systemd-systemctl-ssh.ts";
import type { UnitManager } from "../src/ports/unit-manager.ts";
import { startNspawnSsh } from "../test/peers/nspawn-ssh.ts";
import { PEER_UNITS } from "../test/peers/test-units.ts";
import { unitObjectPath } from "../src/core/systemd/bus-path.ts";

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const r2 = (x: number): number => Math.round(x * 100) / 100;
const stats = (xs: number[]): { n: number; p50_ms: number; p90_ms: number } => ({ n: xs.length, p50_ms: r2(pct(xs, 0.5)), p90_ms: r2(pct(xs, 0.9)) });

async function time(n: number, f: (i: number) => Promise<unknown>): Promise<{ n: number; p50_ms: number; p90_ms: number }> {
  for (let i = 0; i < 5; i++) await f(-1 - i);
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f(i);
    xs.push(performance.now() - t);
  }
  return stats(xs);
}

// Whatever happens, ONE JSON object is printed: each section that fails records its error in `errors` and the
// others still run; a failure to start the container is printed as such; a run that hangs prints what it has
// after WATCHDOG_MS and exits 1 (before, any error or hang lost every figure: nothing was printed).
const out: Record<string, unknown> = { load_average: Math.round(loadavg()[0]! * 100) / 100 };
const errors: Record<string, string> = {};
let printed = false;
const print = (): void => {
  if (printed) return;
  printed = true;
  if (Object.keys(errors).length > 0) out.errors = errors;
  console.log(JSON.stringify(out));
};
const WATCHDOG_MS = 8 * 60_000;
setTimeout(() => {
  errors.watchdog = `the run did not finish within ${WATCHDOG_MS / 60_000} min`;
  print();
  process.exit(1);
}, WATCHDOG_MS).unref();
/** Runs one measured section; an error is recorded under its name and the run goes on. */
async function section(name: string, f: () => Promise<void>): Promise<void> {
  try {
    await f();
  } catch (e) {
    errors[name] = (e as Error).message.slice(0, 500);
  }
}
let peer: Awaited<ReturnType<typeof startNspawnSsh>>;
try {
  peer = await startNspawnSsh();
} catch (e) {
  errors.start = (e as Error).message.slice(0, 500);
  print();
  process.exit(1);
}
const pool = new SshPool({ known_hosts: [peer.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000 });
const open = (user: string) => sessionExecOpener(sshSession(pool, { target: { host: peer.ip, port: peer.port, user } }));
try {
  const unit = PEER_UNITS.withDropIn;
  const rootSession = sshSession(pool, { target: { host: peer.ip, port: peer.port, user: "root" } });
  const sftp = () => rootSession.sftp();
  const managers: Record<string, UnitManager> = {
    // As the daemon composes it (daemon/remote-contexts.ts → sshChangePorts): unit files through SFTP.
    remote_dbus: bridgeUnitManager({ open: open("root"), sftp, host: "box", login: "root", become: "none" }),
    // Before issue 20's read_unit fix: the same bridge, unit files read by one exec each.
    remote_dbus_exec_files: bridgeUnitManager({ open: open("root"), host: "box", login: "root", become: "none" }),
    remote_systemctl: new SystemctlUnitManager({ open: open("root"), sftp, host: "box", login: "root", become: "none" }),
    local: new DbusUnitManager({ busAddress: peer.container.busAddress, fileRoot: peer.container.fileRoot }),
  };
  for (const [name, m] of Object.entries(managers)) {
    await section(name, async () => {
      out[name] = {
        get_unit: await time(50, () => m.getUnit(unit)),
        read_unit_definition: await time(30, () => m.getDefinition(unit)),
        list_units: await time(20, () => m.listUnits()),
      };
    });
  }
  await section("read_unit_split", async () => {
    // Where a warm read_unit's time goes, remote bridge vs the container's own bus, in interleaved rounds: `ping`
    // (Peer.Ping to systemd: the transport alone), `get_one` (one property), `getall_unit` (the Unit properties
    // read_unit decodes), `read_unit` (getUnit: GetAll + MainPID in parallel); daemon CPU per call beside each.
    const path = unitObjectPath(unit);
    type Raw = { call(p: string, i: string, m: string, sig?: string, body?: unknown[]): Promise<unknown[]> };
    const raw = (m: UnitManager): Raw => m as unknown as Raw;
    const ops: Record<string, (m: UnitManager) => Promise<unknown>> = {
      ping: (m) => raw(m).call("/org/freedesktop/systemd1", "org.freedesktop.DBus.Peer", "Ping"),
      get_one: (m) => raw(m).call(path, "org.freedesktop.DBus.Properties", "Get", "ss", ["org.freedesktop.systemd1.Unit", "ActiveState"]),
      getall_unit: (m) => raw(m).call(path, "org.freedesktop.DBus.Properties", "GetAll", "s", ["org.freedesktop.systemd1.Unit"]),
      read_unit: (m) => m.getUnit(unit),
    };
    const pair = { remote: managers.remote_dbus!, local: managers.local! };
    const acc: Record<string, { xs: number[]; cpu: number[] }> = {};
    for (let round = 0; round < 3; round++) {
      for (const [where, m] of Object.entries(pair)) {
        for (const [op, f] of Object.entries(ops)) {
          const c0 = process.cpuUsage();
          const r = await time(30, () => f(m));
          const c = process.cpuUsage(c0);
          const a = (acc[`${where}.${op}`] ??= { xs: [], cpu: [] });
          a.xs.push(r.p50_ms);
          a.cpu.push((c.user + c.system) / 1000 / 35);
        }
      }
    }
    out.read_unit_split = Object.fromEntries(Object.entries(acc).map(([k, a]) => [k, { round_p50_ms: a.xs, daemon_cpu_ms: r2(a.cpu.reduce((x, y) => x + y, 0) / a.cpu.length) }]));
    out.load_average_after_split = Math.round(loadavg()[0]! * 100) / 100;
  });

  for (const m of Object.values(managers)) await m.close().catch(() => undefined);

  await section("bridge_connect", async () => {
    const cold: number[] = [];
    for (let i = 0; i < 8; i++) {
      const m = bridgeUnitManager({ open: open("root"), host: "box", login: "root", become: "none" });
      const t = performance.now();
      await m.getUnit(unit);
      cold.push(performance.now() - t);
      await m.close();
    }
    out.bridge_connect = stats(cold);
  });

  await section("bridge_reopen_after_idle", async () => {
    // The idle close (issue 20): a bridge with no call for idleMs closes; the next read_unit opens a new one. With
    // the pool's idle close at 400 ms, a wait of 200 ms leaves the connection up, a wait of 1 s closes it too.
    const idlePool = new SshPool({ known_hosts: [peer.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000, idle_ms: 400 });
    const m = bridgeUnitManager({ open: sessionExecOpener(sshSession(idlePool, { target: { host: peer.ip, port: peer.port } })), host: "box", login: "root", become: "none", idleMs: 100 });
    const conns = (): number => idlePool.connections;
    if (!(m instanceof DbusUnitManager)) throw new Error("a root login's bridge manager is one DbusUnitManager");
    const xs: Record<"open_bridge" | "warm_connection" | "cold_connection", number[]> = { open_bridge: [], warm_connection: [], cold_connection: [] };
    const timed = async (k: keyof typeof xs): Promise<void> => {
      const t = performance.now();
      await m.getUnit(unit);
      xs[k].push(performance.now() - t);
    };
    try {
      await m.getUnit(unit);
      for (let i = 0; i < 10; i++) {
        await timed("open_bridge");
        await new Promise((r) => setTimeout(r, 200));
        if (m.isConnected || conns() !== 1) throw new Error("the bridge did not close alone, or the connection did");
        await timed("warm_connection");
        await new Promise((r) => setTimeout(r, 1000));
        if (conns() !== 0) throw new Error("the idle connection did not close");
        await timed("cold_connection");
      }
    } finally {
      await m.close();
      idlePool.close();
    }
    out.bridge_reopen_after_idle = Object.fromEntries(Object.entries(xs).map(([k, v]) => [k, stats(v)]));
    out.load_average_after_reopen = r2(loadavg()[0]!);
  });

  await section("openssh_controlmaster_show", async () => {
    // OpenSSH with a ControlMaster, the same read as text.
    const ctl = join(mkdtempSync(join(tmpdir(), "hg-bench-ctl-")), "ctl");
    const sshArgs = ["-i", peer.clientKey, "-o", `UserKnownHostsFile=${peer.knownHosts}`, "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-S", ctl];
    const master = spawn("ssh", [...sshArgs, "-M", "-N", `root@${peer.ip}`], { stdio: "ignore" });
    for (let i = 0; i < 100 && !existsSync(ctl); i++) await new Promise((r) => setTimeout(r, 50));
    out.openssh_controlmaster_show = await time(30, () => {
      const r = spawnSync("ssh", [...sshArgs, `root@${peer.ip}`, "systemctl", "show", "-p", "ActiveState", unit]);
      if (r.status !== 0) throw new Error(`ssh -S failed: ${r.stderr.toString()}`);
      return Promise.resolve();
    });
    master.kill();
  });

  const content = (i: number) => `value = ${i}\n`;
  const sha = (s: string) => createHash("sha256").update(s).digest("hex");
  for (const [name, user, become] of [["write_file_root", "root", "none"], ["write_file_sudo", "deploy", "sudo"]] as const) {
    const m = new SshHostMutator({ open: open(user), host: "box", login: user, become });
    const path = `/etc/hg-bench-${user}.conf`;
    let prev: string | null = null;
    await section(name, async () => {
      out[name] = await time(30, async (i) => {
        const next = content(i);
        await m.writeFileAtomic(path, next, { expectedSha256: prev === null ? null : sha(prev) });
        prev = next;
      });
    });
  }
  const deploy = new SshHostMutator({ open: open("deploy"), host: "box", login: "deploy", become: "sudo" });
  await section("can_become_sudo", async () => { out.can_become_sudo = await time(30, () => deploy.canBecome()); });
} finally {
  pool.close();
  await section("stop", () => peer.stop());
  print();
}
process.exit(Object.keys(errors).length > 0 ? 1 : 0);
