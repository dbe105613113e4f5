import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopTree, waitFor } from "./proc.ts";

/** A real OpenSSH server on 127.0.0.1 with a throwaway host key and one client key (TESTING-PEERS.md recipe). */
export interface SshdPeer {
  port: number;
  /** PID of the listening sshd (the process tree's root: kill it and its sessions to make the host vanish). */
  pid: number;
  clientKey: string;
  dir: string;
  stop(): Promise<void>;
}

/** Why the peer cannot start here, or null. */
export function sshdPrereqs(): string | null {
  if (process.getuid?.() !== 0) return "needs root";
  if (!existsSync("/usr/sbin/sshd")) return "no /usr/sbin/sshd (apt-get install openssh-server)";
  if (!existsSync("/usr/bin/ssh")) return "no /usr/bin/ssh (apt-get install openssh-client)";
  return null;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => { r(); }));
  return port;
}

/** A login only the peer's sshd sees (`startSshd` `logins`). */
export interface SshdLogin {
  name: string;
  uid: number;
  /** Its home (default /tmp); `setup` may create it inside the peer's mount namespace. */
  home?: string;
  /** Extra groups (names from `groups`) it is a member of (supplementary). */
  groups?: string[];
  /** A NOPASSWD sudo rule (ALL) for it, in the peer's own /etc/sudoers.d. */
  sudo?: boolean;
}

/**
 * Starts sshd in a private mount namespace (empty /root, so root's shell init does not run). `sftp: false`
 * leaves out the sftp subsystem (a host whose sshd refuses SFTP). `user` adds a non-root login of that name
 * (uid and gid 4242, home /tmp, /bin/sh) that only this sshd sees: a copy of /etc/passwd with one more line is
 * bind-mounted over /etc/passwd inside its mount namespace; the same client key logs in as root or as it.
 * `logins` adds more such logins (gid = uid, /bin/sh) with `groups` (added to copies of /etc/group, and each
 * a shadow line so sudo's PAM account check passes) and sudo rules (a tmpfs over /etc/sudoers.d); `setup` is
 * a shell script run as root inside the namespace before sshd starts (make homes, mount a tmpfs, start a
 * service: its processes are sshd's children then, ended with it by `stop`).
 */
export async function startSshd(opts: { sftp?: boolean; user?: string; logins?: SshdLogin[]; groups?: { name: string; gid: number }[]; setup?: string } = {}): Promise<SshdPeer> {
  const dir = mkdtempSync(join(tmpdir(), "hg-sshd-"));
  const port = await freePort();
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host_key")]);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client_key")]);
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")));
  const conf = join(dir, "sshd_config");
  writeFileSync(conf, [
    `Port ${port}`, "ListenAddress 127.0.0.1", `HostKey ${join(dir, "host_key")}`, `PidFile ${join(dir, "sshd.pid")}`,
    `AuthorizedKeysFile ${join(dir, "authorized_keys")}`, "PermitRootLogin prohibit-password", "PasswordAuthentication no",
    "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no", "MaxSessions 64", "MaxStartups 100:30:200",
    "AllowStreamLocalForwarding yes", "StreamLocalBindUnlink yes", ...(opts.sftp === false ? [] : ["Subsystem sftp internal-sftp"]), "",
  ].join("\n"));
  mkdirSync("/run/sshd", { recursive: true });
  execFileSync("/usr/sbin/sshd", ["-t", "-f", conf]);
  let passwd = "";
  const logins = [...(opts.user !== undefined ? [{ name: opts.user, uid: 4242 }] : []), ...(opts.logins ?? [])];
  if (logins.length > 0) {
    // The user's session reads authorized_keys as that user (StrictModes is off, but the directory must be open).
    chmodSync(dir, 0o755);
    chmodSync(join(dir, "authorized_keys"), 0o644);
    writeFileSync(join(dir, "passwd"), `${readFileSync("/etc/passwd", "utf8").trimEnd()}\n${logins.map((l) => `${l.name}:x:${l.uid}:${l.uid}::${l.home ?? "/tmp"}:/bin/sh\n`).join("")}`);
    passwd = ` && mount --bind ${join(dir, "passwd")} /etc/passwd`;
  }
  const extra = opts.logins ?? [];
  if (extra.length > 0) {
    const members = (g: string): string => extra.filter((l) => l.groups?.includes(g)).map((l) => l.name).join(",");
    writeFileSync(join(dir, "group"), `${readFileSync("/etc/group", "utf8").trimEnd()}\n${extra.map((l) => `${l.name}:x:${l.uid}:\n`).join("")}${(opts.groups ?? []).map((g) => `${g.name}:x:${g.gid}:${members(g.name)}\n`).join("")}`);
    writeFileSync(join(dir, "shadow"), `${readFileSync("/etc/shadow", "utf8").trimEnd()}\n${extra.map((l) => `${l.name}:*:19000:0:99999:7:::\n`).join("")}`, { mode: 0o600 });
    writeFileSync(join(dir, "sudoers"), extra.filter((l) => l.sudo).map((l) => `${l.name} ALL=(root) NOPASSWD: ALL\n`).join(""), { mode: 0o440 });
    passwd += ` && mount --bind ${join(dir, "group")} /etc/group && mount --bind ${join(dir, "shadow")} /etc/shadow && mount -t tmpfs -o mode=755 tmpfs /etc/sudoers.d && cp ${join(dir, "sudoers")} /etc/sudoers.d/hostgate-test && chmod 0440 /etc/sudoers.d/hostgate-test`;
  }
  if (opts.setup !== undefined) {
    writeFileSync(join(dir, "setup.sh"), opts.setup, { mode: 0o700 });
    passwd += ` && sh ${join(dir, "setup.sh")}`;
  }
  const child = spawn("unshare", ["--mount", "--propagation", "private", "sh", "-c", `mount -t tmpfs -o mode=700 tmpfs /root${passwd} && exec /usr/sbin/sshd -D -f ${conf} -E ${join(dir, "sshd.log")}`], { stdio: "ignore", detached: true });
  child.unref();
  const pid = child.pid!;
  await waitFor("sshd to listen", () => existsSync(join(dir, "sshd.pid")), 10_000);
  return {
    port,
    pid,
    clientKey: join(dir, "client_key"),
    dir,
    stop: async () => {
      await stopTree(pid, 3000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `ssh -N -L local:remote` through the peer; resolves once the local socket exists. Returns a stop function. */
export async function forwardUnixSocket(peer: SshdPeer, localPath: string, remotePath: string): Promise<() => Promise<void>> {
  const child = spawn("ssh", ["-N", "-i", peer.clientKey, "-p", String(peer.port), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
    "-o", "BatchMode=yes", "-o", "ExitOnForwardFailure=yes", "-o", "StreamLocalBindUnlink=yes", "-L", `${localPath}:${remotePath}`, "root@127.0.0.1"], { stdio: "ignore" });
  await waitFor("the ssh tunnel socket", () => existsSync(localPath), 10_000);
  return () => stopTree(child.pid!, 2000);
}
