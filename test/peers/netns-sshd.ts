import { execFileSync, spawn } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { descendantsOf, signal, stopTree, waitFor } from "./proc.ts";

/**
 * Several real OpenSSH servers, each in its own network namespace on a private bridge (TESTING-PEERS.md,
 * "Several hosts"). Names and the /24 are unique per run: they carry "hosts" and the test process's pid.
 * Every namespace, link and sshd is created here and removed by `stop()` (by pid and `ip netns del`).
 */
export interface LabHost {
  /** Display name, also the namespace's hostname. */
  name: string;
  ns: string;
  ip: string;
  port: number;
  /** The host key's public line ("ssh-ed25519 AAAA…"). */
  hostKeyPub: string;
  /** sshd's pid (the listener). */
  pid: number;
}

export interface NetnsLab {
  hosts: LabHost[];
  dir: string;
  clientKey: string;
  /** known_hosts holding every host: even-numbered hosts hashed (`|1|…`), odd ones plain. */
  knownHosts: string;
  /** Takes a host's link down (unreachable) or up again. */
  setLink(h: LabHost, up: boolean): void;
  /** Kills the per-connection sshd processes of a host (a dropped connection), keeping the listener. */
  dropSessions(h: LabHost): void;
  stop(): Promise<void>;
}

/** Why the lab cannot start here, or null. */
export function netnsPrereqs(): string | null {
  if (process.getuid?.() !== 0) return "needs root";
  if (!existsSync("/usr/sbin/sshd")) return "no /usr/sbin/sshd (apt-get install openssh-server)";
  try {
    execFileSync("ip", ["netns", "list"], { stdio: "ignore" });
  } catch {
    return "no usable `ip netns` (apt-get install iproute2)";
  }
  return null;
}

function sh(script: string): void {
  execFileSync("sh", ["-ec", script], { stdio: ["ignore", "ignore", "pipe"] });
}

/** A hashed known_hosts name, as `ssh-keygen -H` writes it. */
export function hashedName(name: string): string {
  const salt = randomBytes(20);
  return `|1|${salt.toString("base64")}|${createHmac("sha1", salt).update(name).digest("base64")}`;
}

/**
 * Starts `count` namespaces with one sshd each (port 22). `sftp: true` adds the sftp subsystem (the typed read
 * ports need it: bench/remote-fanout.ts); without it the hosts offer exec only, as the exec tests expect.
 */
export async function startNetnsLab(count: number, opts: { sftp?: boolean } = {}): Promise<NetnsLab> {
  const pid = process.pid;
  const tag = `${pid % 100000}`;
  const bridge = `hgh${tag}`;
  const subnet = `10.${(pid >> 8) & 255}.${pid & 255}`;
  const dir = mkdtempSync(join(tmpdir(), `hg-hosts-${pid}-`));
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")));
  mkdirSync("/run/sshd", { recursive: true });
  const hosts: LabHost[] = [];
  const namespaces: string[] = [];
  const stopLab = async (): Promise<void> => {
    for (const h of hosts) await stopTree(h.pid, 2000);
    for (const ns of namespaces) {
      try {
        execFileSync("ip", ["netns", "del", ns], { stdio: "ignore" });
      } catch {
        // already gone
      }
    }
    try {
      execFileSync("ip", ["link", "del", bridge], { stdio: "ignore" });
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    sh(`ip link add ${bridge} type bridge; ip addr add ${subnet}.1/24 dev ${bridge}; ip link set ${bridge} up`);
    for (let i = 0; i < count; i++) {
      const n = i + 2;
      const ns = `hosts-${pid}-${n}`;
      const name = `lab${n}`;
      const ip = `${subnet}.${n}`;
      const veth = `hgh${tag}v${n}`;
      namespaces.push(ns);
      sh(`ip netns add ${ns}; ip link add ${veth} type veth peer name eth0 netns ${ns}; ip link set ${veth} master ${bridge} up;
          ip -n ${ns} addr add ${ip}/24 dev eth0; ip -n ${ns} link set eth0 up; ip -n ${ns} link set lo up`);
      const hdir = join(dir, name);
      mkdirSync(hdir);
      execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(hdir, "host_key")]);
      const conf = join(hdir, "sshd_config");
      writeFileSync(conf, [
        "Port 22", `ListenAddress ${ip}`, `HostKey ${join(hdir, "host_key")}`, `PidFile ${join(hdir, "sshd.pid")}`,
        `AuthorizedKeysFile ${join(dir, "authorized_keys")}`, "PermitRootLogin prohibit-password", "PasswordAuthentication no",
        "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no", "MaxSessions 10", "MaxStartups 100:30:200",
        "AllowTcpForwarding yes", ...(opts.sftp === true ? ["Subsystem sftp internal-sftp"] : []), "",
      ].join("\n"));
      execFileSync("/usr/sbin/sshd", ["-t", "-f", conf]);
      const child = spawn("ip", ["netns", "exec", ns, "unshare", "--mount", "--uts", "--propagation", "private", "sh", "-c",
        `hostname ${name}; mount -t tmpfs -o mode=700 tmpfs /root && exec /usr/sbin/sshd -D -f ${conf} -E ${join(hdir, "sshd.log")}`], { stdio: "ignore", detached: true });
      child.unref();
      const pub = readFileSync(join(hdir, "host_key.pub"), "utf8").trim().split(" ").slice(0, 2).join(" ");
      hosts.push({ name, ns, ip, port: 22, hostKeyPub: pub, pid: child.pid! });
    }
    for (const h of hosts) await waitFor(`sshd in ${h.ns}`, () => existsSync(join(dir, h.name, "sshd.pid")), 10_000);
    const lines = hosts.map((h, i) => `${i % 2 === 0 ? hashedName(h.ip) : h.ip} ${h.hostKeyPub}`);
    writeFileSync(join(dir, "known_hosts"), `${lines.join("\n")}\n`);
  } catch (e) {
    await stopLab();
    throw e;
  }
  return {
    hosts,
    dir,
    clientKey: join(dir, "client_key"),
    knownHosts: join(dir, "known_hosts"),
    setLink: (h, up) => { sh(`ip -n ${h.ns} link set eth0 ${up ? "up" : "down"}`); },
    dropSessions: (h) => {
      for (const p of descendantsOf(h.pid)) signal(p, "SIGKILL");
    },
    stop: stopLab,
  };
}
