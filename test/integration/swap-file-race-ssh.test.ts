// Issue 24 trial, finding 1 over SSH: AddSwapFile's plan on an inventory host reads each directory's owner and mode
// through SFTP lstat, and the SSH mutator's createRootFile (adapters/remote-create-script.ts) checks the chain again
// on the host before it creates anything. Real sshd on loopback (this machine's files), a directory a real non-root
// uid owns, sticky /var/tmp, and a root-only directory.
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import { SshHostMutator } from "../../src/adapters/host-mutator-ssh.ts";
import { sessionExecOpener } from "../../src/adapters/remote-exec.ts";
import { sshActionContext } from "../../src/adapters/ssh-context.ts";
import addSwapFile from "../../src/core/catalogue/actions/add-swap-file.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { peerMissing } from "../helpers/peers.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";

const skip = peerMissing("swap file chain over SSH", sshdPrereqs());

describe.skipIf(skip)("AddSwapFile's root-only chain over SSH (SFTP lstat at plan, the create script at execute)", () => {
  let sshd: SshdPeer;
  let pool: SshPool;
  let ctx: ActionContext;
  let mutator: SshHostMutator;
  let base: string;

  beforeAll(async () => {
    sshd = await startSshd();
    const pub = readFileSync(`${sshd.dir}/host_key.pub`, "utf8").trim().split(" ").slice(0, 2).join(" ");
    writeFileSync(`${sshd.dir}/known_hosts`, `[127.0.0.1]:${sshd.port} ${pub}\n`);
    pool = new SshPool({ known_hosts: [`${sshd.dir}/known_hosts`], host_keys: "strict", default_user: "root", default_identity_files: [sshd.clientKey], connect_timeout_ms: 10_000 });
    const route = { target: { host: "127.0.0.1", port: sshd.port } };
    mutator = new SshHostMutator({ open: sessionExecOpener(sshSession(pool, route)), host: "loopback", login: "root", become: "none" });
    ctx = (await sshActionContext({ pool, route, name: "loopback", logs_readable: { kind: "all" }, mutator })).ctx;
    base = mkdtempSync("/var/lib/hg-swap-ssh-");
    chmodSync(base, 0o755);
    mkdirSync(join(base, "alice"), { mode: 0o755 });
    chownSync(join(base, "alice"), 4242, 4242);
    mkdirSync(join(base, "rootonly"), { mode: 0o700 });
    writeFileSync(join(base, "victim"), "root's data\n", { mode: 0o644 });
  }, 30_000);
  afterAll(async () => {
    pool?.close();
    await sshd?.stop();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it("the plan refuses a directory a user owns and sticky /var/tmp, from SFTP's owner and mode", async () => {
    expect((await ctx.host.stat(join(base, "alice"))).uid).toBe(4242);
    await expect(addSwapFile.preview({ path: join(base, "alice", "hgswap"), size_mib: 16 }, ctx)).rejects.toThrow(/alice is owned by uid 4242, not root/);
    await expect(addSwapFile.preview({ path: "/var/tmp/hgswap", size_mib: 16 }, ctx)).rejects.toThrow(/\/var\/tmp is writable by its group and everyone/);
  });

  it("createRootFile on the host refuses the same chains and an existing link, and creates a 0600 file of the size in a root-only one", async () => {
    await expect(mutator.createRootFile(join(base, "alice", "hgswap"), { mode: 0o600, bytes: 4096 })).rejects.toMatchObject({ code: "precondition_failed", message: expect.stringMatching(/alice is owned by uid 4242, not root/) as string });
    expect(existsSync(join(base, "alice", "hgswap"))).toBe(false);
    await expect(mutator.createRootFile("/var/tmp/hg-swap-ssh-never", { mode: 0o600, bytes: 4096 })).rejects.toMatchObject({ code: "precondition_failed", message: expect.stringMatching(/\/var\/tmp is writable by its group or others \(mode 1777\)/) as string });
    symlinkSync(join(base, "victim"), join(base, "rootonly", "linked"));
    await expect(mutator.createRootFile(join(base, "rootonly", "linked"), { mode: 0o600, bytes: 4096 })).rejects.toMatchObject({ code: "precondition_failed", message: expect.stringMatching(/exists now/) as string });
    expect([readFileSync(join(base, "victim"), "utf8"), statSync(join(base, "victim")).mode & 0o7777]).toEqual(["root's data\n", 0o644]);
    await mutator.createRootFile(join(base, "rootonly", "new"), { mode: 0o600, bytes: 2 << 20 });
    const st = statSync(join(base, "rootonly", "new"));
    expect([st.mode & 0o7777, st.size, st.uid]).toEqual([0o600, 2 << 20, 0]);
    await expect(mutator.createRootFile(join(base, "nope", "x"), { mode: 0o600, bytes: 4096 })).rejects.toMatchObject({ code: "not_found" });
  });
});
