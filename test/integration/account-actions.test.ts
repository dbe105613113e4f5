import { spawn, spawnSync } from "node:child_process";
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync, chownSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActionContext, MutatingAction } from "../../src/core/catalogue/action.ts";
import addAuthorizedKey from "../../src/core/catalogue/actions/add-authorized-key.ts";
import addGroupMember from "../../src/core/catalogue/actions/add-group-member.ts";
import createUser from "../../src/core/catalogue/actions/create-user.ts";
import lockUser from "../../src/core/catalogue/actions/lock-user.ts";
import removeAuthorizedKey from "../../src/core/catalogue/actions/remove-authorized-key.ts";
import removeGroupMember from "../../src/core/catalogue/actions/remove-group-member.ts";
import unlockUser from "../../src/core/catalogue/actions/unlock-user.ts";
import { writeKeysFile } from "../../src/core/catalogue/actions/authorized-keys-file.ts";
import { agentPreview } from "../../src/core/transaction/agent-preview.ts";
import { errorCode } from "../helpers/real-context.ts";
import { peerMissing } from "../helpers/peers.ts";
import { scratchPrereqs, startScratchMounts, type ScratchMounts } from "../peers/scratch-mounts.ts";

// Every apply here runs the real shadow-utils (useradd, usermod, gpasswd) and setpriv on this machine, inside a
// private mount namespace whose /etc is an overlay and /home a tmpfs (test/peers/scratch-mounts.ts): the
// machine's own accounts never change. Each action: preview, apply, and a second preview that has nothing to do.
const skip = peerMissing("account actions in a scratch mount namespace", scratchPrereqs() ?? (spawnSync("ssh-keygen", ["-?"]).error ? "no ssh-keygen (openssh-client)" : null));

/** preview → apply → preview; returns the first preview, the apply's output and the second preview. */
async function cycle(a: MutatingAction, params: unknown, ctx: ActionContext): Promise<{ first: Awaited<ReturnType<MutatingAction["preview"]>>; out: unknown; second: Awaited<ReturnType<MutatingAction["preview"]>> }> {
  const parsed = a.params.parse(params);
  const first = await a.preview(parsed, ctx);
  const again = await a.preview(parsed, ctx);
  expect(JSON.stringify(again)).toBe(JSON.stringify(first)); // deterministic: the preview_hash is over it
  const out = await a.apply(parsed, ctx, first);
  const second = await a.preview(parsed, ctx);
  return { first, out, second };
}

describe.skipIf(skip)("account actions on the real machine, in a scratch /etc and /home", () => {
  let s: ScratchMounts;
  let keys: string;
  const pub = (n: string): string => readFileSync(join(keys, `${n}.pub`), "utf8").trim();
  const fingerprint = (n: string): string => spawnSync("ssh-keygen", ["-l", "-f", join(keys, `${n}.pub`)], { encoding: "utf8" }).stdout.split(" ")[1]!;
  const shadow = (name: string): string[] => s.exec(["getent", "shadow", name]).stdout.trim().split(":");

  beforeAll(async () => {
    s = await startScratchMounts();
    keys = mkdtempSync(join(tmpdir(), "hg-keys-"));
    for (const [n, t] of [["k1", "ed25519"], ["k2", "ecdsa"], ["k3", "rsa"]] as const) {
      expect(spawnSync("ssh-keygen", ["-q", "-t", t, "-N", "", "-C", `${n}@test`, "-f", join(keys, n)]).status).toBe(0);
    }
  }, 30_000);
  afterAll(async () => {
    await s?.stop();
    rmSync(keys, { recursive: true, force: true });
  });

  it("CreateUser previews useradd, creates the user with its group and home from /etc/skel, then has nothing to do", async () => {
    expect(s.exec(["getent", "passwd", "hgalice"]).status).toBe(2);
    const { first, out, second } = await cycle(createUser, { name: "hgalice", comment: "Alice Test" }, s.ctx);
    expect(first.summary).toBe("Create user hgalice (shell /bin/bash, home /home/hgalice, created from /etc/skel)");
    // Quoted as a shell reads it (issue 24 trial, finding 5: `--comment Alice Test` hid where the argument ended).
    expect(first.text).toContain("will run: useradd --create-home --home-dir /home/hgalice --shell /bin/bash --user-group --comment 'Alice Test' -- hgalice");
    expect(first.warnings).toBeUndefined(); // /bin/bash is in /etc/shells
    expect(out).toMatchObject({ changed: true, ran: [{ exit_code: 0 }] });
    const [, , uid, gid, gecos, home, shell] = s.exec(["getent", "passwd", "hgalice"]).stdout.trim().split(":");
    expect(Number(uid)).toBeGreaterThanOrEqual(1000);
    expect([gecos, home, shell]).toEqual(["Alice Test", "/home/hgalice", "/bin/bash"]);
    expect(s.exec(["getent", "group", "hgalice"]).stdout.split(":")[2]).toBe(gid);
    expect(statSync(s.outside("/home/hgalice/.bashrc")).uid).toBe(Number(uid));
    expect(second.summary).toMatch(/^Create user hgalice: nothing to do/);
    expect(second.text).toContain("(nothing will run)");
    expect(spawnSync("getent", ["passwd", "hgalice"]).status).toBe(2); // this machine's /etc is untouched
  });

  it("CreateUser with system: true makes a system account below UID_MIN with nologin and no home", async () => {
    const { out, second } = await cycle(createUser, { name: "hgsvc", system: true }, s.ctx);
    expect(out).toMatchObject({ changed: true });
    const [, , uid, , , home, shell] = s.exec(["getent", "passwd", "hgsvc"]).stdout.trim().split(":");
    expect(Number(uid)).toBeLessThan(1000);
    expect(shell).toBe("/usr/sbin/nologin");
    expect(() => lstatSync(s.outside(home!))).toThrow();
    expect(second.summary).toMatch(/nothing to do/);
  });

  it("CreateUser refuses an existing user with other attributes, an existing group name, a missing shell and bad names", async () => {
    expect(await errorCode(() => createUser.preview(createUser.params.parse({ name: "hgalice", shell: "/bin/sh" }), s.ctx))).toBe("invalid_params");
    expect(await errorCode(() => createUser.preview(createUser.params.parse({ name: "root", shell: "/bin/sh" }), s.ctx))).toBe("invalid_params");
    s.exec(["groupadd", "hgonlygroup"]);
    await expect(createUser.preview(createUser.params.parse({ name: "hgonlygroup" }), s.ctx)).rejects.toThrow(/group named hgonlygroup already exists/);
    await expect(createUser.preview(createUser.params.parse({ name: "hgbob", shell: "/bin/no-such-shell" }), s.ctx)).rejects.toThrow(/does not exist on this host/);
    await expect(createUser.preview(createUser.params.parse({ name: "hgbob", home: "/home/../etc" }), s.ctx)).rejects.toThrow(/not a normalised absolute path/);
    for (const bad of ["-oroot", "Alice", "a b", "x".repeat(33), "a:b"]) expect(createUser.params.safeParse({ name: bad }).success, bad).toBe(false);
    expect(createUser.params.safeParse({ name: "hgbob", comment: "a\nb" }).success).toBe(false);
  });

  it("LockUser expires the account (and locks a set password); UnlockUser undoes both; each second preview has nothing to do", async () => {
    s.exec(["usermod", "--password", "$6$salt$hash", "hgalice"]);
    const lock = await cycle(lockUser, { name: "hgalice" }, s.ctx);
    expect(lock.first.summary).toBe("Lock user hgalice: expire the account and lock its password");
    expect(lock.first.text).toContain("will run: usermod --expiredate 1 --lock -- hgalice");
    expect(JSON.stringify(lock.first)).not.toContain("$6$"); // the hash is never in a preview
    expect(shadow("hgalice")[1]).toBe("!$6$salt$hash");
    expect(shadow("hgalice")[7]).toBe("1");
    expect(lock.second.summary).toMatch(/^Lock user hgalice: nothing to do/);
    const unlock = await cycle(unlockUser, { name: "hgalice" }, s.ctx);
    expect(unlock.first.text).toContain("will run: usermod --expiredate '' --unlock -- hgalice");
    expect(shadow("hgalice")[1]).toBe("$6$salt$hash");
    expect(shadow("hgalice")[7]).toBe("");
    expect(unlock.second.summary).toMatch(/^Unlock user hgalice: nothing to do/);
  });

  it("LockUser of a password-less account only expires it; UnlockUser leaves it without a password", async () => {
    await cycle(createUser, { name: "hgkeyonly" }, s.ctx);
    const lock = await cycle(lockUser, { name: "hgkeyonly" }, s.ctx);
    expect(lock.first.text).toContain("will run: usermod --expiredate 1 -- hgkeyonly");
    expect(shadow("hgkeyonly")[1]).toBe("!");
    await cycle(unlockUser, { name: "hgkeyonly" }, s.ctx);
    expect(shadow("hgkeyonly").slice(1, 2).concat(shadow("hgkeyonly")[7]!)).toEqual(["!", ""]);
  });

  it("LockUser / UnlockUser refuse root and the daemon's own user; an unknown user is not_found", async () => {
    await expect(lockUser.preview({ name: "root" }, s.ctx)).rejects.toThrow(/does not lock root: it is root \(uid 0\)/);
    await expect(unlockUser.preview({ name: "root" }, s.ctx)).rejects.toThrow(/does not unlock root/);
    // The daemon's own user: a daemon process running as hgsvc (its uid read from /proc/<pid>/status).
    const uid = Number(s.exec(["id", "-u", "hgsvc"]).stdout.trim());
    const child = spawn("setpriv", ["--reuid", String(uid), "--regid", String(uid), "--clear-groups", "sleep", "30"], { stdio: "ignore" });
    try {
      await new Promise((r) => setTimeout(r, 200));
      const ctx = { ...s.ctx, self_pid: child.pid! };
      await expect(lockUser.preview({ name: "hgsvc" }, ctx)).rejects.toThrow(/it is the user the hostgate daemon runs as/);
      expect(await errorCode(() => lockUser.preview({ name: "hgsvc" }, s.ctx))).toBeNull();
    } finally {
      child.kill("SIGKILL");
    }
    expect(await errorCode(() => lockUser.preview({ name: "hgnobody" }, s.ctx))).toBe("not_found");
  });

  it("AddGroupMember / RemoveGroupMember: gpasswd with nothing left to do after each; adding to sudo warns", async () => {
    const add = await cycle(addGroupMember, { user: "hgalice", group: "sudo" }, s.ctx);
    expect(add.first.text).toContain("will run: gpasswd --add hgalice sudo");
    expect(add.first.warnings?.[0]).toMatch(/^sudo is a privileged group: hgalice runs any command as root through sudo\. Source: /);
    expect(s.exec(["getent", "group", "sudo"]).stdout.trim().split(":")[3]!.split(",")).toContain("hgalice");
    expect(add.second.summary).toMatch(/nothing to do \(already a member\)/);
    s.exec(["gpasswd", "--add", "hgkeyonly", "sudo"]);
    const rm = await cycle(removeGroupMember, { user: "hgalice", group: "sudo" }, s.ctx);
    expect(rm.first.text).toContain("will run: gpasswd --delete hgalice sudo");
    expect(s.exec(["getent", "group", "sudo"]).stdout.trim().split(":")[3]!.split(",")).not.toContain("hgalice");
    expect(rm.second.summary).toMatch(/nothing to do \(not a member\)/);
  });

  it("AddGroupMember warns for every group of the privileged table that exists here (disk, shadow, adm, kvm…), and not for an ordinary one (issue 24 trial, finding 5)", async () => {
    const here = ["disk", "shadow", "adm", "kvm", "docker", "lxd", "libvirt"].filter((g) => s.exec(["getent", "group", g]).status === 0);
    expect(here).toEqual(expect.arrayContaining(["disk", "shadow", "adm"]));
    for (const g of here) {
      const p = await addGroupMember.preview({ user: "hgalice", group: g }, s.ctx);
      expect(p.warnings?.[0], g).toMatch(new RegExp(`^${g} is a privileged group: hgalice .*\\. Source: .+\\.$`));
    }
    expect((await addGroupMember.preview({ user: "hgalice", group: "disk" }, s.ctx)).warnings?.[0]).toMatch(/root-equivalent/);
    s.exec(["groupadd", "hgplain"]);
    expect((await addGroupMember.preview({ user: "hgalice", group: "hgplain" }, s.ctx)).warnings).toBeUndefined();
  });

  it("CreateUser warns when the login shell is not in /etc/shells; nologin is not warned about", async () => {
    const odd = await createUser.preview(createUser.params.parse({ name: "hgodd", shell: "/bin/true" }), s.ctx);
    expect(odd.warnings).toEqual(["/bin/true is not listed in /etc/shells: chsh refuses it and services that check /etc/shells (pam_shells, FTP servers) treat the account as having no valid shell. Source: shells(5)."]);
    expect(odd.text).toContain("!! /bin/true is not listed in /etc/shells");
    expect((await createUser.preview(createUser.params.parse({ name: "hgodd", system: true }), s.ctx)).warnings).toBeUndefined();
  });

  it("RemoveGroupMember refuses the last administrator, root's group, a primary group, root and unknown names", async () => {
    expect(s.exec(["getent", "group", "sudo"]).stdout.trim().split(":")[3]).toBe("hgkeyonly");
    await expect(removeGroupMember.preview({ user: "hgkeyonly", group: "sudo" }, s.ctx)).rejects.toThrow(/would leave no member in any administrators' group/);
    await expect(addGroupMember.preview({ user: "hgalice", group: "root" }, s.ctx)).rejects.toThrow(/root's primary group/);
    await expect(addGroupMember.preview({ user: "hgalice", group: "hgalice" }, s.ctx)).rejects.toThrow(/is hgalice's primary group/);
    await expect(removeGroupMember.preview({ user: "root", group: "sudo" }, s.ctx)).rejects.toThrow(/does not remove from groups root/);
    expect(await errorCode(() => addGroupMember.preview({ user: "hgalice", group: "hgnogroup" }, s.ctx))).toBe("not_found");
  });

  it("AddAuthorizedKey validates like ssh-keygen -l, writes ~/.ssh/authorized_keys as the user 0600 (.ssh 0700), then has nothing to do", async () => {
    const { first, out, second } = await cycle(addAuthorizedKey, { user: "hgalice", key: pub("k1") }, s.ctx);
    expect(first.summary).toBe(`Authorize key ${fingerprint("k1")} (ssh-ed25519, k1@test) for hgalice`);
    expect(out).toMatchObject({ changed: true, keys: 1, fingerprint: fingerprint("k1") });
    const uid = Number(s.exec(["id", "-u", "hgalice"]).stdout.trim());
    const file = lstatSync(s.outside("/home/hgalice/.ssh/authorized_keys"));
    expect([file.uid, file.mode & 0o7777]).toEqual([uid, 0o600]);
    const dir = lstatSync(s.outside("/home/hgalice/.ssh"));
    expect([dir.uid, dir.mode & 0o7777]).toEqual([uid, 0o700]);
    expect(readFileSync(s.outside("/home/hgalice/.ssh/authorized_keys"), "utf8")).toBe(`${pub("k1")}\n`);
    expect(spawnSync("ssh-keygen", ["-l", "-f", s.outside("/home/hgalice/.ssh/authorized_keys")], { encoding: "utf8" }).stdout.split(" ")[1]).toBe(fingerprint("k1"));
    expect(second.summary).toMatch(/nothing to do \(already authorized\)/);
    for (const n of ["k2", "k3"]) {
      const r = await cycle(addAuthorizedKey, { user: "hgalice", key: pub(n) }, s.ctx);
      expect((r.first.intended as { key: { fingerprint: string } }).key.fingerprint).toBe(fingerprint(n)); // ECDSA and RSA fingerprints as ssh-keygen prints them
    }
    expect(readFileSync(s.outside("/home/hgalice/.ssh/authorized_keys"), "utf8")).toBe(`${pub("k1")}\n${pub("k2")}\n${pub("k3")}\n`);
    expect(JSON.stringify(agentPreview(first))).not.toContain("AAAA"); // the model sees fingerprints, never blobs
  });

  it("AddAuthorizedKey refuses what ssh-keygen -l refuses: a private key, a damaged blob, a DSA key, two lines", async () => {
    const bad = [
      readFileSync(join(keys, "k1"), "utf8"),
      pub("k1").replace(/AAAA(\w)/, "AAAB$1"),
      `ssh-ed25519 ${pub("k2").split(" ")[1]} wrong-type`,
      "ssh-dss AAAAB3NzaC1kc3MAAACBAP",
      `${pub("k1")}\n${pub("k2")}`,
      "",
    ];
    for (const key of bad) {
      expect(await errorCode(() => addAuthorizedKey.preview({ user: "hgalice", key }, s.ctx)), key.slice(0, 30)).toBe("invalid_params");
    }
    writeFileSync(join(keys, "damaged.pub"), `${bad[1]}\n`);
    expect(spawnSync("ssh-keygen", ["-l", "-f", join(keys, "damaged.pub")]).status).not.toBe(0); // ssh-keygen agrees
  });

  it("RemoveAuthorizedKey by fingerprint or key line rewrites the file without it, then has nothing to do", async () => {
    const { first, out, second } = await cycle(removeAuthorizedKey, { user: "hgalice", key: fingerprint("k2") }, s.ctx);
    expect(first.text).toContain(`- ${fingerprint("k2")} ecdsa-sha2-nistp256 k2@test`);
    expect(out).toMatchObject({ changed: true, keys: 2 });
    expect(readFileSync(s.outside("/home/hgalice/.ssh/authorized_keys"), "utf8")).toBe(`${pub("k1")}\n${pub("k3")}\n`);
    expect(second.summary).toMatch(/nothing to do \(not authorized\)/);
    await cycle(removeAuthorizedKey, { user: "hgalice", key: pub("k3") }, s.ctx);
    expect(readFileSync(s.outside("/home/hgalice/.ssh/authorized_keys"), "utf8")).toBe(`${pub("k1")}\n`);
    expect(await errorCode(() => removeAuthorizedKey.preview({ user: "hgalice", key: "SHA256:short" }, s.ctx))).toBe("invalid_params");
    await expect(removeAuthorizedKey.preview({ user: "root", key: fingerprint("k1") }, s.ctx)).rejects.toThrow(/root/);
  });

  it("AddAuthorizedKey of a present key with other options replaces its options, saying from what to what; without options it is nothing to do and says the key has options (trial f24b)", async () => {
    expect(readFileSync(s.outside("/home/hgalice/.ssh/authorized_keys"), "utf8")).toBe(`${pub("k1")}\n`);
    const { first, out, second } = await cycle(addAuthorizedKey, { user: "hgalice", key: `no-pty,from="10.0.0.0/8" ${pub("k1")}` }, s.ctx);
    expect(first.summary).toBe(`Change the options of key ${fingerprint("k1")} for hgalice: none → no-pty,from="10.0.0.0/8"`);
    expect(first.warnings?.[0]).toMatch(/already authorized with options none; its line is replaced/);
    expect(first.text).toContain(`~ ${fingerprint("k1")} ssh-ed25519 k1@test [none] → [no-pty,from="10.0.0.0/8"]`);
    expect(out).toMatchObject({ changed: true, keys: 1 });
    expect(readFileSync(s.outside("/home/hgalice/.ssh/authorized_keys"), "utf8")).toBe(`no-pty,from="10.0.0.0/8" ${pub("k1")}\n`);
    expect(second.summary).toBe(`Add key ${fingerprint("k1")} for hgalice: nothing to do (already authorized)`);
    const plain = await addAuthorizedKey.preview(addAuthorizedKey.params.parse({ user: "hgalice", key: pub("k1") }), s.ctx);
    expect(plain.summary).toBe(`Add key ${fingerprint("k1")} for hgalice: nothing to do (already authorized with options no-pty,from="10.0.0.0/8"; send the key line with options to change them)`);
    await cycle(addAuthorizedKey, { user: "hgalice", key: `restrict ${pub("k1")}` }, s.ctx);
    expect(readFileSync(s.outside("/home/hgalice/.ssh/authorized_keys"), "utf8")).toBe(`restrict ${pub("k1")}\n`);
  });

  it("authorized keys: a symbolic link at ~/.ssh or authorized_keys is refused at preview, and a link swapped in before apply is not followed", async () => {
    await cycle(createUser, { name: "hgmallory" }, s.ctx);
    const uid = Number(s.exec(["id", "-u", "hgmallory"]).stdout.trim());
    const home = s.outside("/home/hgmallory");
    symlinkSync("/etc", join(home, ".ssh"));
    await expect(addAuthorizedKey.preview({ user: "hgmallory", key: pub("k1") }, s.ctx)).rejects.toThrow(/\.ssh is a symbolic link/);
    rmSync(join(home, ".ssh"));
    mkdirSync(join(home, ".ssh"), { mode: 0o700 });
    chownSync(join(home, ".ssh"), uid, uid);
    symlinkSync("/etc/passwd", join(home, ".ssh", "authorized_keys"));
    await expect(addAuthorizedKey.preview({ user: "hgmallory", key: pub("k1") }, s.ctx)).rejects.toThrow(/authorized_keys is a symbolic link/);
    // The user swaps a link in after the preview: apply refuses, and root-owned files are untouched.
    rmSync(join(home, ".ssh", "authorized_keys"));
    const preview = await addAuthorizedKey.preview({ user: "hgmallory", key: pub("k1") }, s.ctx);
    const passwdBefore = readFileSync(s.outside("/etc/passwd"), "utf8");
    rmSync(join(home, ".ssh"), { recursive: true });
    symlinkSync("/etc", join(home, ".ssh"));
    expect(await errorCode(() => addAuthorizedKey.apply({ user: "hgmallory", key: pub("k1") }, s.ctx, preview))).toBe("precondition_failed");
    expect(readFileSync(s.outside("/etc/passwd"), "utf8")).toBe(passwdBefore);
    expect(() => lstatSync(s.outside("/etc/authorized_keys"))).toThrow();
    // The same swap after apply's own checks: the write script, running as the user, refuses the link itself.
    const u = { name: "hgmallory", uid, gid: uid, gecos: "", home: "/home/hgmallory", shell: "/bin/bash" };
    expect(await errorCode(() => writeKeysFile(s.ctx, u, null, `${pub("k1")}\n`))).toBe("precondition_failed");
    rmSync(join(home, ".ssh"));
    mkdirSync(join(home, ".ssh"), { mode: 0o700 });
    chownSync(join(home, ".ssh"), uid, uid);
    symlinkSync("/etc/hg-planted", join(home, ".ssh", "authorized_keys"));
    expect(await errorCode(() => writeKeysFile(s.ctx, u, null, `${pub("k1")}\n`))).toBe("precondition_failed");
    expect(() => lstatSync(s.outside("/etc/hg-planted"))).toThrow();
  });

  it("authorized keys: a file changed after the preview is precondition_failed and left as it is", async () => {
    const preview = await addAuthorizedKey.preview({ user: "hgalice", key: pub("k2") }, s.ctx);
    const path = s.outside("/home/hgalice/.ssh/authorized_keys");
    const uid = Number(s.exec(["id", "-u", "hgalice"]).stdout.trim());
    writeFileSync(path, `${pub("k1")}\n${pub("k3")}\n`);
    chownSync(path, uid, uid);
    expect(await errorCode(() => addAuthorizedKey.apply({ user: "hgalice", key: pub("k2") }, s.ctx, preview))).toBe("precondition_failed");
    expect(readFileSync(path, "utf8")).toBe(`${pub("k1")}\n${pub("k3")}\n`);
  });
});
