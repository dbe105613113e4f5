/**
 * Issue 24/20 gaps: file removal over SSH (SshHostMutator.removeFile, one fixed script) and the probe changes
 * read an SSH host through (SshPreviewProbe: as the login, then as root through `sudo -n` on `become: sudo`
 * hosts; `stat -c` with device and inode). Against a real PID-1 systemd container reached by real sshd
 * (test/peers/nspawn-ssh.ts): `root`, `deploy` (NOPASSWD sudo), `asker` (sudo wants a password), `plain` (no
 * sudo). Every result is checked with the container's own tools (stat, ls, test) through nsenter.
 */
import { existsSync, lstatSync, readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import { SshHostMutator } from "../../src/adapters/host-mutator-ssh.ts";
import { SshHostProbe } from "../../src/adapters/host-ssh.ts";
import { parseStatLine, SshPreviewProbe, STAT_FORMAT } from "../../src/adapters/host-ssh-preview.ts";
import { sessionExecOpener } from "../../src/adapters/remote-exec.ts";
import type { Become } from "../../src/core/inventory/become.ts";
import { HostgateError } from "../../src/core/errors.ts";
import { nspawnSshPrereqs, startNspawnSsh, type NspawnSshPeer } from "../peers/nspawn-ssh.ts";
import { REQUIRE_PEERS } from "../peers/proc.ts";

const missing = nspawnSshPrereqs();
if (missing !== null && !REQUIRE_PEERS) console.warn(`\n*** SKIPPING remote-remove-preview tests: ${missing} (set HOSTGATE_REQUIRE_PEERS=1 to fail instead) ***\n`);
const suite = missing === null || REQUIRE_PEERS ? describe : describe.skip;

/** The HostgateError a promise rejects with (fails the test when it resolves). */
async function errorOf(p: Promise<unknown>): Promise<HostgateError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof HostgateError) return e;
    throw e;
  }
  throw new Error("expected a rejection");
}

suite("removeFile and the preview probe over SSH on a PID-1 systemd container (issue 24/20)", () => {
  let peer: NspawnSshPeer;
  let pool: SshPool;

  beforeAll(async () => {
    if (missing !== null) throw new Error(`peer unavailable: ${missing}`);
    peer = await startNspawnSsh();
    pool = new SshPool({ known_hosts: [peer.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000 });
  }, 90_000);
  afterAll(async () => {
    pool?.close();
    await peer?.stop();
  });

  const session = (user: string) => sshSession(pool, { target: { host: peer.ip, port: peer.port, user } });
  const mutator = (user: string, become: Become): SshHostMutator => new SshHostMutator({ open: sessionExecOpener(session(user)), host: "box", login: user, become });
  const previewProbe = (user: string, become: Become): SshPreviewProbe => {
    const s = session(user);
    return new SshPreviewProbe({ login: new SshHostProbe(s, "box"), open: sessionExecOpener(s), host: "box", loginUser: user, become });
  };
  /** A path inside the container as this machine sees it. */
  const inside = (p: string): string => `${peer.container.fileRoot}${p}`;
  const sh = (script: string): string => {
    const r = peer.container.exec(["sh", "-c", script]);
    if (r.status !== 0) throw new Error(`${script} failed in the container`);
    return r.stdout;
  };
  /** dev and inode of a path as the container's own stat prints them. */
  const identity = (path: string): { dev: number; ino: number } => {
    const [dev, ino] = sh(`stat -c '%d %i' '${path}'`).trim().split(" ").map(Number);
    return { dev: dev!, ino: ino! };
  };
  const removal = (path: string, how: "delete" | "truncate" = "delete", dir = path.slice(0, path.lastIndexOf("/"))) => {
    const id = identity(path);
    return { how, expectedRealDir: dir, expectedDev: id.dev, expectedIno: id.ino };
  };

  describe("SshHostMutator.removeFile", () => {
    it("delete as deploy through sudo: the approved file is gone, its size is returned, nothing is left aside", async () => {
      sh("mkdir -p /var/log/hgr && head -c 3000 /dev/zero > /var/log/hgr/app.log.1");
      expect(await mutator("deploy", "sudo").removeFile("/var/log/hgr/app.log.1", removal("/var/log/hgr/app.log.1"))).toEqual({ size: 3000 });
      expect(sh("test -e /var/log/hgr/app.log.1 && echo present || echo gone").trim()).toBe("gone");
      expect(sh("ls -A /var/log/hgr")).toBe("");
    });

    it("truncate as root: cut to 0 bytes in place (same inode, owner and mode kept)", async () => {
      sh("printf 'line one\\nline two\\n' > /var/log/hgr/live.log && chown deploy /var/log/hgr/live.log && chmod 0640 /var/log/hgr/live.log");
      const before = identity("/var/log/hgr/live.log");
      expect(await mutator("root", "none").removeFile("/var/log/hgr/live.log", removal("/var/log/hgr/live.log", "truncate"))).toEqual({ size: 18 });
      expect(sh("stat -c '%s %U %a' /var/log/hgr/live.log").trim()).toBe("0 deploy 640");
      expect(identity("/var/log/hgr/live.log")).toEqual(before);
    });

    it("refusals change nothing: a final symlink, another inode under the name (put back), two hard links, a directory; the local adapter's wording", async () => {
      const m = mutator("deploy", "sudo");
      sh("printf 'secret\\n' > /root/hg-target && ln -sfn /root/hg-target /var/log/hgr/link.log");
      const target = identity("/root/hg-target");
      const linkId = { expectedRealDir: "/var/log/hgr", expectedDev: target.dev, expectedIno: target.ino };
      for (const how of ["delete", "truncate"] as const) {
        const e = await errorOf(m.removeFile("/var/log/hgr/link.log", { ...linkId, how }));
        expect(e).toMatchObject({ code: "precondition_failed", message: "/var/log/hgr/link.log on box is now a symlink; hostgate does not follow links. Nothing was changed." });
      }
      expect(lstatSync(inside("/var/log/hgr/link.log")).isSymbolicLink()).toBe(true);
      expect(readFileSync(inside("/root/hg-target"), "utf8")).toBe("secret\n");

      sh("printf 'approved\\n' > /var/log/hgr/rot.log");
      const approved = removal("/var/log/hgr/rot.log");
      sh("mv /var/log/hgr/rot.log /var/log/hgr/rot.log.1 && printf 'new\\n' > /var/log/hgr/rot.log");
      for (const how of ["delete", "truncate"] as const) {
        const e = await errorOf(m.removeFile("/var/log/hgr/rot.log", { ...approved, how }));
        expect(e.code).toBe("precondition_failed");
        expect(e.message).toBe("/var/log/hgr/rot.log on box: it is another file than the one approved (its inode changed, e.g. a log rotation). Nothing was changed.");
      }
      expect(readFileSync(inside("/var/log/hgr/rot.log"), "utf8")).toBe("new\n");
      expect(sh("ls -A /var/log/hgr | grep -c hostgate || true").trim()).toBe("0");

      sh("printf 'x\\n' > /var/log/hgr/hard.log && ln -f /var/log/hgr/hard.log /root/hg-hard");
      expect((await errorOf(m.removeFile("/var/log/hgr/hard.log", removal("/var/log/hgr/hard.log")))).message).toMatch(/: it now has 2 hard links\. Nothing was changed\.$/);
      expect(existsSync(inside("/var/log/hgr/hard.log"))).toBe(true);

      sh("mkdir -p /var/log/hgr/sub.d");
      expect((await errorOf(m.removeFile("/var/log/hgr/sub.d", removal("/var/log/hgr/sub.d")))).message).toMatch(/: it is no longer a regular file\. Nothing was changed\.$/);
      expect(sh("test -d /var/log/hgr/sub.d && echo dir").trim()).toBe("dir");
    });

    it("a parent that resolves elsewhere than the approved directory (a link swapped in) is refused; a missing file or directory is not_found", async () => {
      sh("mkdir -p /srv/hgr-real && printf 'x\\n' > /srv/hgr-real/f.log && ln -sfn /srv/hgr-real /srv/hgr-link");
      const m = mutator("root", "none");
      const e = await errorOf(m.removeFile("/srv/hgr-link/f.log", removal("/srv/hgr-real/f.log", "delete", "/srv/hgr-link")));
      expect(e).toMatchObject({ code: "precondition_failed", message: "/srv/hgr-link on box no longer resolves to /srv/hgr-link (now /srv/hgr-real); nothing was changed." });
      expect(existsSync(inside("/srv/hgr-real/f.log"))).toBe(true);
      const gone = { how: "delete" as const, expectedRealDir: "/srv/hgr-real", expectedDev: 1, expectedIno: 1 };
      expect(await errorOf(m.removeFile("/srv/hgr-real/none.log", gone))).toMatchObject({ code: "not_found", message: "Deleting /srv/hgr-real/none.log on box: does not exist." });
      expect((await errorOf(m.removeFile("/srv/hgr-missing/f.log", gone))).code).toBe("not_found");
    });

    it("S019: a hostile file name (quotes, $(), newline, leading dash) is deleted as that name and nothing in it runs", async () => {
      const name = "-n 'q\"$(touch hg-pwned)`touch hg-pwned2`\nx;y $HOME *";
      sh("mkdir -p /tmp/hgr-hostile && printf 'keep\\n' > /tmp/hgr-hostile/other");
      writeFileSync(inside(`/tmp/hgr-hostile/${name}`), "bye\n");
      const st = lstatSync(inside(`/tmp/hgr-hostile/${name}`));
      const dev = Number(sh(`stat -c '%d' /tmp/hgr-hostile/other`).trim());
      expect(await mutator("root", "none").removeFile(`/tmp/hgr-hostile/${name}`, { how: "delete", expectedRealDir: "/tmp/hgr-hostile", expectedDev: dev, expectedIno: st.ino })).toEqual({ size: 4 });
      expect(sh("ls -A /tmp/hgr-hostile")).toBe("other\n");
      for (const d of ["/root", "/tmp/hgr-hostile", "/"]) for (const f of ["hg-pwned", "hg-pwned2"]) expect(existsSync(inside(`${d}/${f}`))).toBe(false);
    });

    it("bad input is a clear invalid_params before anything is sent", async () => {
      const m = mutator("root", "none");
      const ok = { how: "delete" as const, expectedRealDir: "/var/log", expectedDev: 1, expectedIno: 1 };
      for (const p of ["var/log/x", "/var/log/../x", "/var/log/x/", "/"]) expect((await errorOf(m.removeFile(p, ok))).code).toBe("invalid_params");
      expect((await errorOf(m.removeFile("/var/log/x", { ...ok, expectedRealDir: "var/log" }))).message).toMatch(/^expectedRealDir "var\/log" is not an absolute, normalised directory\./);
      expect((await errorOf(m.removeFile("/var/log/x", { ...ok, expectedIno: -1 }))).message).toMatch(/^expectedIno -1 is not a file identity/);
      expect((await errorOf(m.removeFile("/var/log/x", { ...ok, expectedDev: 1.5 }))).code).toBe("invalid_params");
      expect((await errorOf(m.removeFile("/var/log/x", { ...ok, how: "shred" as "delete" }))).message).toBe('how must be delete or truncate, not "shred".');
    });

    it("S016: asker (sudo wants a password) is sudo_password_required and plain without become is permission_denied naming become: sudo; the file stays", async () => {
      sh("mkdir -p /var/log/hgr && printf 'x\\n' > /var/log/hgr/keep.log");
      const r = removal("/var/log/hgr/keep.log");
      expect(await errorOf(mutator("asker", "sudo").removeFile("/var/log/hgr/keep.log", r))).toMatchObject({ code: "sudo_password_required", hint: expect.stringContaining("NOPASSWD") as string });
      const plain = await errorOf(mutator("plain", "none").removeFile("/var/log/hgr/keep.log", r));
      expect(plain).toMatchObject({ code: "permission_denied", hint: "Log in as root or set become: sudo for box." });
      expect(readFileSync(inside("/var/log/hgr/keep.log"), "utf8")).toBe("x\n");
    });
  });

  it("SshHostProbe reads a record-based /proc file larger than one page whole (mountinfo, as cat prints it on the same login)", async () => {
    sh("for i in $(seq 1 30); do mkdir -p /mnt/hgm-$i && mount -t tmpfs -o size=1k hgm-$i /mnt/hgm-$i; done");
    try {
      const probe = new SshHostProbe(session("plain"), "box");
      const text = await probe.readText("/proc/self/mountinfo");
      expect(text.length).toBeGreaterThan(6000);
      expect(text).toBe((await probe.run(["cat", "/proc/self/mountinfo"])).stdout);
      expect(text).toContain(" /mnt/hgm-30 ");
    } finally {
      sh("for i in $(seq 1 30); do umount /mnt/hgm-$i; done");
    }
  });

  describe("SshPreviewProbe (ActionContext.preview_host of an SSH host)", () => {
    it("deploy with become: sudo reads what the login cannot (/etc/shadow, a 0700 ~/.ssh) as root; the login's own probe is refused", async () => {
      sh("mkdir -p /home/hgp/.ssh && printf 'ssh-ed25519 AAAA k@x\\n' > /home/hgp/.ssh/authorized_keys && ln -sfn authorized_keys /home/hgp/.ssh/ak-link && chmod 700 /home/hgp/.ssh");
      const s = session("deploy");
      const login = new SshHostProbe(s, "box");
      const p = previewProbe("deploy", "sudo");
      expect((await errorOf(login.readText("/etc/shadow"))).code).toBe("permission_denied");
      expect(await p.readText("/etc/shadow")).toBe(readFileSync(inside("/etc/shadow"), "utf8"));
      expect((await errorOf(login.stat("/home/hgp/.ssh/authorized_keys"))).code).toBe("permission_denied");
      expect(await p.readText("/home/hgp/.ssh/authorized_keys", { maxBytes: 4096 })).toBe("ssh-ed25519 AAAA k@x\n");
      expect(await p.readText("/home/hgp/.ssh/authorized_keys", { maxBytes: 7 })).toBe("ssh-ed2");
      expect((await p.readDir("/home/hgp/.ssh")).sort()).toEqual(sh("ls -A /home/hgp/.ssh").trim().split("\n").sort());
      expect(await p.readLink("/home/hgp/.ssh/ak-link")).toBe("authorized_keys");
      expect(await p.realPath("/home/hgp/.ssh/ak-link")).toBe("/home/hgp/.ssh/authorized_keys");
      expect(await p.stat("/home/hgp/.ssh/authorized_keys")).toEqual(parseStatLine(sh(`stat -c '${STAT_FORMAT}' /home/hgp/.ssh/authorized_keys`)));
      // Reads the login can make stay the login's (no sudo): the same bytes as the direct probe.
      expect(await p.readText("/etc/passwd")).toBe(await login.readText("/etc/passwd"));
    });

    it("a capped read as root never follows a final link (a link into a root-only file is unavailable), and a missing path is not_found (realPath too)", async () => {
      sh("mkdir -p /home/hgp/.ssh && ln -sfn /etc/shadow /home/hgp/.ssh/evil && chmod 700 /home/hgp/.ssh");
      const p = previewProbe("deploy", "sudo");
      const e = await errorOf(p.readText("/home/hgp/.ssh/evil", { maxBytes: 4096 }));
      expect(e).toMatchObject({ code: "unavailable", message: "/home/hgp/.ssh/evil on box is a symlink; it is not followed." });
      expect(e.message).not.toContain("root:");
      expect((await p.stat("/home/hgp/.ssh/evil")).is_symlink).toBe(true);
      const none = await errorOf(p.readText("/home/hgp/.ssh/none", { maxBytes: 10 }));
      expect(none).toMatchObject({ code: "not_found", message: "/home/hgp/.ssh/none does not exist on box." });
      expect((await errorOf(p.stat("/home/hgp/.ssh/none"))).code).toBe("not_found");
      // realPath needs every component, as the local probe's realpath(3) (SFTP's accepts a missing last one).
      expect(await errorOf(p.realPath("/home/hgp/.ssh/none"))).toMatchObject({ code: "not_found", message: "/home/hgp/.ssh/none does not exist on box." });
      expect((await errorOf(previewProbe("root", "none").realPath("/var/log/hg-none.log"))).code).toBe("not_found");
    });

    it("stat carries device, inode, links, owner and blocks equal to the container's own stat, for a root login too (no sudo there)", async () => {
      sh("mkdir -p /var/log/hgr && printf 'abc\\n' > /var/log/hgr/id.log && ln -f /var/log/hgr/id.log /var/log/hgr/id2.log && chown deploy /var/log/hgr/id.log");
      const want = sh("stat -c '%d %i %h %u %s %a' /var/log/hgr/id.log").trim();
      for (const p of [previewProbe("root", "none"), previewProbe("deploy", "sudo"), previewProbe("plain", "none")]) {
        const st = await p.stat("/var/log/hgr/id.log");
        expect(`${st.dev} ${st.ino} ${st.nlink} ${st.uid} ${st.size} ${st.mode!.toString(8)}`).toBe(want);
        const [blocks, unit] = sh("stat -c '%b %B' /var/log/hgr/id.log").trim().split(" ").map(Number);
        expect(st).toMatchObject({ is_file: true, is_directory: false, is_symlink: false, blocks_bytes: blocks! * unit! });
      }
      expect(previewProbe("root", "none").elevates).toBe(false);
      expect(previewProbe("deploy", "sudo").elevates).toBe(true);
    });

    it("S016: asker (sudo wants a password) gets sudo_password_required at once; plain without become gets permission_denied naming become: sudo", async () => {
      const started = Date.now();
      expect(await errorOf(previewProbe("asker", "sudo").readText("/etc/shadow"))).toMatchObject({ code: "sudo_password_required", hint: expect.stringContaining("NOPASSWD") as string });
      expect(Date.now() - started).toBeLessThan(14_000); // the probe's own 15 s budget never ran out: no prompt waited
      const plain = await errorOf(previewProbe("plain", "none").stat("/home/hgp/.ssh/authorized_keys"));
      expect(plain).toMatchObject({ code: "permission_denied", message: "Permission denied reading /home/hgp/.ssh/authorized_keys on box as plain.", hint: expect.stringContaining("Set become: sudo for box") as string });
      expect((await errorOf(previewProbe("plain", "none").readText("/etc/shadow"))).code).toBe("permission_denied");
    });

    it("S019: hostile paths reach stat and dd as one quoted argument (nothing runs); a relative path is invalid_params", async () => {
      const path = "/tmp/hgr-q/-q '$(touch hg-pp)`touch hg-pp2`\n;x $HOME";
      sh("mkdir -p /tmp/hgr-q && chmod 700 /tmp/hgr-q");
      writeFileSync(inside(path), "hostile\n");
      const p = previewProbe("deploy", "sudo");
      expect(await p.readText(path, { maxBytes: 100 })).toBe("hostile\n");
      expect((await p.stat(path)).size).toBe(8);
      for (const d of ["/root", "/home/deploy", "/tmp/hgr-q", "/"]) for (const f of ["hg-pp", "hg-pp2"]) expect(existsSync(inside(`${d}/${f}`))).toBe(false);
      expect(await errorOf(p.stat("tmp/x"))).toMatchObject({ code: "invalid_params", message: '"tmp/x" is not an absolute path.' });
    });
  });
});
