// Issue 24 trial, finding 1: AddSwapFile in a directory a user owns. The user (a real uid, not root) renames the new
// file away and plants a link to a root-owned file in its place, in a loop; before the fix root chmod'ed, mkswap'ed
// and swapon'ed the link's target. Now a chain someone other than root can change is refused at plan (and again at
// execute), and HostMutator.createRootFile refuses it on held descriptors. Real files, a real racing process.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import addSwapFile from "../../src/core/catalogue/actions/add-swap-file.ts";
import removeSwapFile from "../../src/core/catalogue/actions/remove-swap-file.ts";
import { LinuxHostMutator } from "../../src/adapters/host-mutator-linux.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";
import { peerMissing } from "../helpers/peers.ts";

const fsOfVarLib = spawnSync("findmnt", ["-n", "-o", "FSTYPE", "-T", "/var/lib"], { encoding: "utf8" }).stdout.trim();
const skip = peerMissing("swap file race", process.getuid?.() !== 0 ? "needs root (a second uid, root-owned files)" : spawnSync("setpriv", ["--version"]).error ? "no setpriv (util-linux)" : !["ext4", "xfs"].includes(fsOfVarLib) ? `/var/lib is on ${fsOfVarLib}, not ext4/xfs` : null);
const ALICE = 4242;

describe.skipIf(skip)("AddSwapFile: a directory chain only root can change (issue 24 trial, the swap race)", () => {
  let base: string;
  let home: string;
  let victim: string;
  let racer: ChildProcess | undefined;
  const mutator = new LinuxHostMutator();

  beforeAll(() => {
    base = mkdtempSync("/var/lib/hg-swap-race-");
    chmodSync(base, 0o755);
    home = join(base, "alice");
    mkdirSync(home, { mode: 0o755 });
    chownSync(home, ALICE, ALICE);
    victim = join(base, "victim");
    writeFileSync(victim, "root's data\n", { mode: 0o644 });
    // alice, a real non-root uid: renames whatever is at hgswap away and puts a link to root's file there, forever.
    racer = spawn("setpriv", ["--reuid", String(ALICE), "--regid", String(ALICE), "--clear-groups", "sh", "-c", `cd ${home} && while :; do mv -f hgswap moved 2>/dev/null; ln -sfn ${victim} hgswap; ln -sfn ${victim} hgswap2 2>/dev/null; done`], { stdio: "ignore" });
  });
  afterAll(() => {
    if (racer?.pid !== undefined) process.kill(racer.pid, "SIGKILL");
    rmSync(base, { recursive: true, force: true });
  });

  it("refuses at plan (preview and apply) a swap file in a directory a user owns, while the user races links into it", async () => {
    const ctx = await realContext();
    const path = join(home, "hgswap");
    await expect(addSwapFile.preview({ path, size_mib: 16 }, ctx)).rejects.toThrow(new RegExp(`${home} is owned by uid ${ALICE}, not root`));
    expect(await errorCode(() => addSwapFile.apply({ path, size_mib: 16 }, ctx, { summary: "", text: "" }))).toBe("invalid_params");
    expect(readFileSync(victim, "utf8")).toBe("root's data\n");
    expect(statSync(victim).mode & 0o7777).toBe(0o644);
  });

  it("createRootFile refuses the same chain on held descriptors and never touches the link's target", async () => {
    await expect(mutator.createRootFile(join(home, "hgswap2"), { mode: 0o600, bytes: 1 << 20 })).rejects.toMatchObject({ code: "precondition_failed", message: expect.stringMatching(/owned by uid 4242, not root/) as string });
    expect(readFileSync(victim, "utf8")).toBe("root's data\n");
    expect(statSync(victim).mode & 0o7777).toBe(0o644);
  });

  it("refuses sticky world-writable /var/tmp and group-writable directories, at plan and in the mutator", async () => {
    const ctx = await realContext();
    const tmp = mkdtempSync("/var/tmp/hg-swap-sticky-");
    try {
      await expect(addSwapFile.preview({ path: join(tmp, "swap"), size_mib: 16 }, ctx)).rejects.toThrow(/\/var\/tmp is writable by its group and everyone \(mode 1777; the sticky bit does not stop a new name being planted\)/);
      await expect(mutator.createRootFile(join(tmp, "swap"), { mode: 0o600, bytes: 4096 })).rejects.toMatchObject({ code: "precondition_failed" });
      expect(existsSync(join(tmp, "swap"))).toBe(false);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    const group = join(base, "group-w");
    mkdirSync(group, { mode: 0o775 });
    chmodSync(group, 0o775);
    await expect(addSwapFile.preview({ path: join(group, "swap"), size_mib: 16 }, ctx)).rejects.toThrow(/group-w is writable by its group \(mode 0775\)/);
  });

  // s25: RemoveSwapFile lacked this check. swapoff takes a path: in a directory a user can write, the user could put
  // another swap file under that name between the check and swapoff. A real active swap file in alice's directory.
  it("RemoveSwapFile refuses an active swap file in a directory a user owns, at plan and in apply; nothing is turned off or deleted", async () => {
    const ctx = await realContext();
    const dir = join(base, "alice-swap");
    mkdirSync(dir, { mode: 0o755 });
    chownSync(dir, ALICE, ALICE);
    const path = join(dir, "swap");
    const swaps = (): string => readFileSync("/proc/swaps", "utf8");
    try {
      for (const argv of [["fallocate", "-l", "16M", path], ["chmod", "600", path], ["mkswap", path], ["swapon", path]]) expect(spawnSync(argv[0]!, argv.slice(1)).status, argv.join(" ")).toBe(0);
      expect(swaps()).toContain(`${path} `);
      const refusal = new RegExp(`${path} is not removed: ${dir} is owned by uid ${ALICE}, not root\\. swapoff takes a path`);
      await expect(removeSwapFile.preview({ path }, ctx)).rejects.toThrow(refusal);
      await expect(removeSwapFile.preview({ path }, ctx)).rejects.toMatchObject({ code: "invalid_params", hint: expect.stringContaining(`chown root ${dir} && chmod go-w ${dir}`) as string, details: { directory: dir } });
      // apply plans again before swapoff: refused there too, whatever preview it is given.
      expect(await errorCode(() => removeSwapFile.apply({ path }, ctx, { summary: "", text: "", current: { file: null } }))).toBe("invalid_params");
      expect(swaps()).toContain(`${path} `);
      expect(existsSync(path)).toBe(true);
      // Writable by its group (owned by root) is refused the same way.
      chownSync(dir, 0, 0);
      chmodSync(dir, 0o775);
      await expect(removeSwapFile.preview({ path }, ctx)).rejects.toThrow(/alice-swap is writable by its group \(mode 0775\)/);
    } finally {
      if (swaps().includes(`${path} `)) spawnSync("swapoff", [path]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a swap file inside hostgate's own state directory", async () => {
    const state = join(base, "state");
    mkdirSync(state, { mode: 0o700 });
    const ctx = await realContext({ protected_paths: [state] });
    await expect(addSwapFile.preview({ path: join(state, "swap"), size_mib: 16 }, ctx)).rejects.toThrow(/is inside .*state, hostgate's own state or configuration/);
  });

  it("createRootFile in a root-only directory: O_EXCL (an existing name or a link there is refused, its target untouched), mode and size set by descriptor", async () => {
    const dir = join(base, "rootonly");
    mkdirSync(dir, { mode: 0o700 });
    symlinkSync(victim, join(dir, "linked"));
    await expect(mutator.createRootFile(join(dir, "linked"), { mode: 0o600, bytes: 4096 })).rejects.toMatchObject({ code: "precondition_failed", message: expect.stringMatching(/exists now/) as string });
    expect(lstatSync(join(dir, "linked")).isSymbolicLink()).toBe(true);
    expect(statSync(victim).mode & 0o7777).toBe(0o644);
    await mutator.createRootFile(join(dir, "new"), { mode: 0o600, bytes: 3 << 20 });
    const st = statSync(join(dir, "new"));
    expect([st.mode & 0o7777, st.size, st.uid, st.blocks * 512 >= 3 << 20]).toEqual([0o600, 3 << 20, 0, true]);
    await expect(mutator.createRootFile(join(dir, "new"), { mode: 0o600, bytes: 4096 })).rejects.toMatchObject({ code: "precondition_failed" });
    await expect(mutator.createRootFile(join(dir, "x"), { mode: 0o600, bytes: 0 })).rejects.toMatchObject({ code: "invalid_params" });
    symlinkSync(dir, join(base, "dirlink"));
    await expect(mutator.createRootFile(join(base, "dirlink", "y"), { mode: 0o600, bytes: 4096 })).rejects.toMatchObject({ code: "precondition_failed", message: expect.stringMatching(/symbolic link/) as string });
  });
});
