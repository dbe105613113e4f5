// The UnitManager contract against every adapter: mock, a real `systemd --user`, a real PID-1 systemd in nspawn.
import { describe, it } from "vitest";
import { DbusUnitManager } from "../src/adapters/systemd-dbus.ts";
import { MockUnitManager, createMockUnitManagers } from "../src/adapters/systemd-mock.ts";
import { createUnitManagerSet } from "../src/adapters/unit-manager-set.ts";
import { describeUnitManagerContract } from "./contract/unit-manager-contract.ts";
import { SshPool } from "../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../src/adapters/exec-ssh/session.ts";
import { sessionExecOpener } from "../src/adapters/remote-exec.ts";
import { bridgeUnitManager } from "../src/adapters/systemd-bridge-ssh.ts";
import { SystemctlUnitManager } from "../src/adapters/systemd-systemctl-ssh.ts";
import { nspawnPrereqs, startNspawn } from "./peers/nspawn.ts";
import { nspawnSshPrereqs, startNspawnSsh } from "./peers/nspawn-ssh.ts";
import { REQUIRE_PEERS } from "./peers/proc.ts";
import { startUserManager, userManagerPrereqs } from "./peers/systemd-user.ts";
import { PEER_UNITS } from "./peers/test-units.ts";

describeUnitManagerContract("mock", () => Promise.resolve({
  units: createMockUnitManagers(),
  ref: { scope: "system" },
  known: {
    running: "nginx.service", reloadable: "nginx.service", withDropIn: "nginx.service", installable: "cron.service", timer: "backup.timer",
    escaped: "systemd-fsck@dev-disk-by\\x2duuid-1234\\x2dABCD.service", secret: "abc123", rootMount: "-.mount",
  },
  stop: () => Promise.resolve(),
}));

/** Registers the peer's contract, or a loud skip (a failure under HOSTGATE_REQUIRE_PEERS=1) when prerequisites are missing. */
function peerContract(name: string, missing: string | null, register: () => void): void {
  if (missing === null) {
    register();
    return;
  }
  if (REQUIRE_PEERS) {
    describe(`UnitManager contract: ${name}`, () => {
      it("has its prerequisites (HOSTGATE_REQUIRE_PEERS=1)", () => {
        throw new Error(`peer ${name} unavailable: ${missing}`);
      });
    });
    return;
  }
  console.warn(`\n*** SKIPPING UnitManager contract for ${name}: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
  describe.skip(`UnitManager contract: ${name} (SKIPPED: ${missing})`, () => {
    it("needs its peer", () => undefined);
  });
}

peerContract("dbus, real systemd --user", userManagerPrereqs(), () => {
  describeUnitManagerContract("dbus, real systemd --user", async () => {
    const peer = await startUserManager();
    const user = new DbusUnitManager({ busAddress: peer.busAddress, ref: { scope: "user", user: peer.user } });
    return {
      units: createUnitManagerSet(new MockUnitManager(), new Map([[peer.user, user]])),
      ref: { scope: "user", user: peer.user },
      known: { ...PEER_UNITS },
      stop: () => peer.stop(),
    };
  });
});

peerContract("dbus, PID-1 systemd in nspawn", nspawnPrereqs(), () => {
  describeUnitManagerContract("dbus, PID-1 systemd in nspawn", async () => {
    const peer = await startNspawn();
    const system = new DbusUnitManager({ busAddress: peer.busAddress, fileRoot: peer.fileRoot });
    return {
      units: createUnitManagerSet(system, new Map()),
      ref: { scope: "system" },
      known: { ...PEER_UNITS, rootMount: "-.mount" },
      stop: () => peer.stop(),
    };
  });
});

// Issue 20: the same contract on the container's own D-Bus reached over SSH (systemd-stdio-bridge on one exec
// channel of the shared pool), unit files read on the container. Logged in as deploy with `become: sudo`, so
// reads use the login's bridge and jobs a `sudo -n` one.
peerContract("dbus over SSH (systemd-stdio-bridge), PID-1 systemd in nspawn", nspawnSshPrereqs(), () => {
  describeUnitManagerContract("dbus over SSH (systemd-stdio-bridge), PID-1 systemd in nspawn", async () => {
    const peer = await startNspawnSsh();
    const pool = new SshPool({ known_hosts: [peer.knownHosts], host_keys: "strict", default_user: "deploy", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000 });
    const open = sessionExecOpener(sshSession(pool, { target: { host: peer.ip, port: peer.port } }));
    const system = bridgeUnitManager({ open, host: "box", login: "deploy", become: "sudo" });
    return {
      units: createUnitManagerSet(system, new Map()),
      ref: { scope: "system" },
      known: { ...PEER_UNITS, rootMount: "-.mount" },
      stop: async () => {
        pool.close();
        await peer.stop();
      },
    };
  });
});

// The fallback where the bridge is absent: every call one `systemctl` over SSH, output parsed. Same contract.
peerContract("systemctl over SSH (no bridge), PID-1 systemd in nspawn", nspawnSshPrereqs(), () => {
  describeUnitManagerContract("systemctl over SSH (no bridge), PID-1 systemd in nspawn", async () => {
    const peer = await startNspawnSsh();
    const pool = new SshPool({ known_hosts: [peer.knownHosts], host_keys: "strict", default_user: "deploy", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000 });
    const open = sessionExecOpener(sshSession(pool, { target: { host: peer.ip, port: peer.port } }));
    return {
      units: createUnitManagerSet(new SystemctlUnitManager({ open, host: "box", login: "deploy", become: "sudo" }), new Map()),
      ref: { scope: "system" },
      known: { ...PEER_UNITS, rootMount: "-.mount" },
      stop: async () => {
        pool.close();
        await peer.stop();
      },
    };
  });
});
