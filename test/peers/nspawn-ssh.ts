// A PID-1 systemd container reachable over SSH (issue 20): the v2 rootfs booted with systemd-nspawn inside a
// network namespace this module creates, its sshd started with a host key and authorized keys generated here.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { netnsPrereqs } from "./netns-sshd.ts";
import { nspawnPrereqs, ROOTFS_CACHE, startNspawn, type NspawnPeer } from "./nspawn.ts";

/**
 * The container's logins, all with the same client key: `root`; `deploy` with a NOPASSWD sudo rule; `asker`
 * whose sudo rule needs a password (so `sudo -n` refuses); `plain` with no sudo rule at all.
 */
export const CONTAINER_USERS = ["root", "deploy", "asker", "plain"] as const;

export interface NspawnSshPeer {
  container: NspawnPeer;
  /** The container's address (port 22), reachable from this machine's network namespace only. */
  ip: string;
  port: number;
  clientKey: string;
  /** known_hosts with the container's host key for `ip`. */
  knownHosts: string;
  hostKeyPub: string;
  dir: string;
  stop(): Promise<void>;
}

/** Why the peer cannot start here, or null. */
export function nspawnSshPrereqs(): string | null {
  return nspawnPrereqs() ?? netnsPrereqs() ?? (existsSync(join(ROOTFS_CACHE, "usr", "sbin", "sshd")) ? null : `the rootfs at ${ROOTFS_CACHE} has no sshd (rebuild it: scripts/build-rootfs.sh)`);
}

let started = 0;

function canConnect(ip: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: ip, port, timeout: 500 });
    s.once("connect", () => { s.destroy(); resolve(true); });
    s.once("error", () => { resolve(false); });
    s.once("timeout", () => { s.destroy(); resolve(false); });
  });
}

/** Creates the namespace and link, boots the container in it, adds the users and starts sshd. */
export async function startNspawnSsh(): Promise<NspawnSshPeer> {
  const pid = process.pid;
  const n = ++started;
  const ns = `hgc-${pid}-${n}`;
  const veth = `hgc${pid % 100000}c${n}`;
  const base = `172.${16 + (pid & 15)}.${(pid >> 4) & 255}`;
  const hostIp = `${base}.${n * 4 + 1}`;
  const ip = `${base}.${n * 4 + 2}`;
  const dir = mkdtempSync(join(tmpdir(), "hg-nspawn-ssh-"));
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "", "-f", join(dir, "host_key")]);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "", "-f", join(dir, "client_key")]);
  const hostKeyPub = readFileSync(join(dir, "host_key.pub"), "utf8").trim().split(" ").slice(0, 2).join(" ");
  writeFileSync(join(dir, "known_hosts"), `${ip} ${hostKeyPub}\n`);
  let container: NspawnPeer | undefined;
  const stop = async (): Promise<void> => {
    await container?.stop();
    for (const argv of [["ip", "netns", "del", ns], ["ip", "link", "del", veth]]) {
      try {
        execFileSync(argv[0]!, argv.slice(1), { stdio: "ignore" });
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    execFileSync("sh", ["-ec", `ip netns add ${ns}; ip link add ${veth} type veth peer name eth0 netns ${ns}
      ip addr add ${hostIp}/30 dev ${veth}; ip link set ${veth} up
      ip -n ${ns} addr add ${ip}/30 dev eth0; ip -n ${ns} link set eth0 up; ip -n ${ns} link set lo up`], { stdio: ["ignore", "ignore", "pipe"] });
    container = await startNspawn({
      netnsPath: `/run/netns/${ns}`,
      prepare: (root) => {
        const ssh = join(root, "etc", "ssh");
        writeFileSync(join(ssh, "hostgate_host_key"), readFileSync(join(dir, "host_key")), { mode: 0o600 });
        writeFileSync(join(ssh, "hostgate_authorized_keys"), readFileSync(join(dir, "client_key.pub")), { mode: 0o644 });
        writeFileSync(join(ssh, "sshd_config"), [
          "Port 22", "HostKey /etc/ssh/hostgate_host_key", "AuthorizedKeysFile /etc/ssh/hostgate_authorized_keys",
          "PermitRootLogin prohibit-password", "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no",
          "StrictModes no", "MaxSessions 64", "MaxStartups 100:30:200", "Subsystem sftp internal-sftp", "",
        ].join("\n"));
        const sudoers = join(root, "etc", "sudoers.d", "hostgate-test");
        writeFileSync(sudoers, "deploy ALL=(ALL:ALL) NOPASSWD: ALL\nasker ALL=(ALL:ALL) ALL\n");
        chmodSync(sudoers, 0o440);
      },
    });
    const c = container;
    const run = (argv: string[]): void => {
      const r = c.exec(argv);
      if (r.status !== 0) throw new Error(`${argv.join(" ")} failed in the container (${r.status})`);
    };
    // '*': no password, but not locked (sshd without PAM refuses logins to accounts locked with '!').
    for (const u of ["deploy", "asker", "plain"]) run(["useradd", "-m", "-s", "/bin/sh", "-p", "*", u]);
    run(["systemctl", "start", "ssh.service"]);
    const deadline = Date.now() + 15_000;
    while (!(await canConnect(ip, 22))) {
      if (Date.now() > deadline) throw new Error(`sshd in the container did not listen on ${ip}:22`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { container, ip, port: 22, clientKey: join(dir, "client_key"), knownHosts: join(dir, "known_hosts"), hostKeyPub, dir, stop };
}

