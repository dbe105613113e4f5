/**
 * Issue 20 (read_unit ≤ 10 ms): a remote host's unit files are read through the pooled connection's SFTP channel
 * (src/adapters/unit-file-sftp.ts) instead of one exec per file. Against a real sshd on loopback (the remote host
 * is this machine), each answer must equal the local reader's (systemd-dbus.ts localUnitFileReader) for the same
 * file: text, a note for a file not readable by everyone, a truncation mark, errno names. What only the remote
 * reader must do: refuse a FIFO without opening it (it would hold the host's one SFTP channel), and read as the
 * SSH login (a file that login may not reach is `EACCES`).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import { localUnitFileReader, type UnitFileReader } from "../../src/adapters/systemd-dbus.ts";
import { sftpUnitFileReader } from "../../src/adapters/unit-file-sftp.ts";
import { peerMissing } from "../helpers/peers.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";

const skip = peerMissing("unit files over SFTP", sshdPrereqs());

describe.skipIf(skip)("unit files read over SFTP (issue 20)", () => {
  let peer: SshdPeer;
  let pool: SshPool;
  let dir: string;
  let asRoot: UnitFileReader;
  let asUser: UnitFileReader;
  const local = localUnitFileReader("/");

  beforeAll(async () => {
    peer = await startSshd({ user: "hgunit" });
    const pub = readFileSync(join(peer.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    writeFileSync(join(peer.dir, "known_hosts"), `[127.0.0.1]:${peer.port} ${pub}\n`);
    pool = new SshPool({ known_hosts: [join(peer.dir, "known_hosts")], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 5000 });
    const session = (user: string) => sshSession(pool, { target: { host: "127.0.0.1", port: peer.port, user } });
    const root = session("root");
    const user = session("hgunit");
    asRoot = sftpUnitFileReader(() => root.sftp());
    asUser = sftpUnitFileReader(() => user.sftp());
    dir = mkdtempSync(join(tmpdir(), "hg-unitfiles-"));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "a.service"), "[Service]\nExecStart=/bin/true\n", { mode: 0o644 });
    writeFileSync(join(dir, "secret.conf"), "[Service]\nEnvironment=TOKEN=hunter2\n", { mode: 0o600 });
    symlinkSync(join(dir, "a.service"), join(dir, "link.service"));
    // Larger than one SFTP read (64 KiB), so a cut past the first chunk is exercised.
    writeFileSync(join(dir, "big.conf"), Array.from({ length: 9000 }, (_, i) => `# line ${i} ${"x".repeat(20)}`).join("\n"), { mode: 0o644 });
    execFileSync("mkfifo", ["-m", "0644", join(dir, "fifo.conf")]);
    mkdirSync(join(dir, "closed"), { mode: 0o700 });
    writeFileSync(join(dir, "closed", "x.conf"), "[Unit]\n", { mode: 0o644 });
  }, 30_000);

  afterAll(async () => {
    pool?.close();
    await peer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("answers as the local reader does: text, symlink followed, the 0600 note, a missing file, cuts at and past one read", async () => {
    for (const [name, max] of [["a.service", 256 * 1024], ["link.service", 256 * 1024], ["secret.conf", 256 * 1024], ["gone.conf", 256 * 1024], ["a.service", 10], ["big.conf", 100_000], ["big.conf", 1024 * 1024]] as const) {
      const path = join(dir, name);
      expect(await asRoot(path, max), `${name} (max ${max})`).toBe(await local(path, max));
    }
    expect(await asRoot(join(dir, "secret.conf"), 4096)).toBe("(not shown: mode 0600, not readable by everyone; read it on the host)\n");
    expect(await asRoot(join(dir, "gone.conf"), 4096)).toBe("(unreadable: ENOENT)\n");
    expect(await asRoot(join(dir, "big.conf"), 100_000)).toMatch(/\n\(truncated at 100000 bytes\)\n$/);
  });

  it("refuses a FIFO without opening it, and the channel still answers the next read", async () => {
    expect(await asRoot(join(dir, "fifo.conf"), 4096)).toBe("(unreadable: not a regular file)\n");
    expect(await asRoot(join(dir, "a.service"), 4096)).toBe("[Service]\nExecStart=/bin/true\n");
  }, 10_000);

  it("reads as the SSH login: a file under a directory that login may not enter is EACCES", async () => {
    expect(await asUser(join(dir, "closed", "x.conf"), 4096)).toBe("(unreadable: EACCES)\n");
    expect(await asUser(join(dir, "a.service"), 4096)).toBe("[Service]\nExecStart=/bin/true\n");
    expect(await asRoot(join(dir, "closed", "x.conf"), 4096)).toBe("[Unit]\n");
  });
});
