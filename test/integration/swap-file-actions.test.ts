import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Preview } from "../../src/core/catalogue/action.ts";
import addSwapFile from "../../src/core/catalogue/actions/add-swap-file.ts";
import removeSwapFile from "../../src/core/catalogue/actions/remove-swap-file.ts";
import { errorCode } from "../helpers/real-context.ts";
import { peerMissing } from "../helpers/peers.ts";
import { scratchPrereqs, startScratchMounts, type ScratchMounts } from "../peers/scratch-mounts.ts";

// Real fallocate(2), mkswap, swapon and swapoff on this machine. Swap is global to the kernel: the test's 16 MiB
// file in a root-only temp directory under /var/lib (ext4 here; /var/tmp is sticky world-writable, refused) is really swapped on, then off and deleted (afterAll turns it
// off if a test failed half-way). /etc/fstab is the scratch namespace's overlay (test/peers/scratch-mounts.ts), so
// this machine's fstab never changes; /home there is a tmpfs, for the tmpfs refusal.
const fsOfVarLib = spawnSync("findmnt", ["-n", "-o", "FSTYPE", "-T", "/var/lib"], { encoding: "utf8" }).stdout.trim();
const skip = peerMissing("swap file actions", scratchPrereqs() ?? (!["ext4", "xfs"].includes(fsOfVarLib) ? `/var/lib is on ${fsOfVarLib}, not ext4/xfs` : null));

describe.skipIf(skip)("AddSwapFile / RemoveSwapFile with real swapon on this machine and a scratch /etc/fstab", () => {
  let s: ScratchMounts;
  let dir: string;
  let path: string;
  const swaps = (): string => readFileSync("/proc/swaps", "utf8");
  const fstab = (): string => readFileSync(s.outside("/etc/fstab"), "utf8");

  beforeAll(async () => {
    s = await startScratchMounts();
    dir = mkdtempSync("/var/lib/hg-swap-");
    path = join(dir, "swapfile");
  }, 30_000);
  afterAll(async () => {
    if (path && swaps().includes(path)) spawnSync("swapoff", [path]);
    if (dir) rmSync(dir, { recursive: true, force: true });
    await s?.stop();
  });

  it("AddSwapFile previews the fstab diff, creates a 0600 swap file that is active, and then has nothing to do", async () => {
    const hostFstab = readFileSync("/etc/fstab", "utf8");
    const before = fstab();
    const first = await addSwapFile.preview({ path, size_mib: 16 }, s.ctx);
    expect(JSON.stringify(await addSwapFile.preview({ path, size_mib: 16 }, s.ctx))).toBe(JSON.stringify(first));
    expect(first.summary).toMatch(new RegExp(`^Add a 16 MiB swap file ${path} on / \\(ext4|xfs\\)`));
    expect(first.text).toContain(`will create: ${path} (new file, 16777216 bytes allocated, mode 0600)\nwill run: mkswap ${path}\nwill run: swapon ${path}`);
    expect(first.text).toContain(`+++ b/etc/fstab`);
    expect(first.text).toContain(`+${path} none swap sw 0 0`);
    expect(existsSync(path)).toBe(false); // the preview changed nothing
    await addSwapFile.apply({ path, size_mib: 16 }, s.ctx, first);
    expect(swaps()).toContain(path);
    expect(statSync(path).size).toBe(16 * 1024 * 1024);
    expect(statSync(path).mode & 0o7777).toBe(0o600);
    expect(spawnSync("swapon", ["--show=NAME,TYPE", "--noheadings"], { encoding: "utf8" }).stdout).toMatch(new RegExp(`${path}\\s+file`));
    expect(fstab()).toBe(`${before}${before.endsWith("\n") || before === "" ? "" : "\n"}${path} none swap sw 0 0\n`);
    expect(readFileSync("/etc/fstab", "utf8")).toBe(hostFstab); // this machine's fstab is untouched
    const second = await addSwapFile.preview({ path, size_mib: 16 }, s.ctx);
    expect(second.summary).toBe(`Add swap file ${path}: nothing to do (active and in /etc/fstab)`);
  });

  it("RemoveSwapFile previews swapoff and the fstab diff, turns it off, drops the line, deletes the file, then has nothing to do", async () => {
    const first: Preview = await removeSwapFile.preview({ path }, s.ctx);
    expect(first.summary).toBe(`Remove swap file ${path}: swapoff, drop its /etc/fstab line, delete the file`);
    expect(first.text).toContain(`will run: swapoff ${path}`);
    expect(first.text).toContain(`-${path} none swap sw 0 0`);
    await removeSwapFile.apply({ path }, s.ctx, first);
    expect(swaps()).not.toContain(path);
    expect(fstab()).not.toContain(path);
    expect(existsSync(path)).toBe(false);
    const second = await removeSwapFile.preview({ path }, s.ctx);
    expect(second.summary).toMatch(/nothing to do/);
  });

  it("refuses tmpfs, an existing file, a directory reached through a link, a file not known as swap, and bad paths", async () => {
    await expect(addSwapFile.preview({ path: "/home/swapfile", size_mib: 16 }, s.ctx)).rejects.toThrow(/would be on tmpfs \(\/home\): tmpfs lives in memory/);
    writeFileSync(join(dir, "taken"), "x");
    await expect(addSwapFile.preview({ path: join(dir, "taken"), size_mib: 16 }, s.ctx)).rejects.toThrow(/already exists/);
    await expect(removeSwapFile.preview({ path: join(dir, "taken") }, s.ctx)).rejects.toThrow(/neither active swap nor a swap line/);
    symlinkSync(dir, join(dir, "link"));
    await expect(addSwapFile.preview({ path: join(dir, "link", "swap2"), size_mib: 16 }, s.ctx)).rejects.toThrow(/resolves to .* through a symbolic link/);
    await expect(addSwapFile.preview({ path: join(dir, "swap3"), size_mib: 1024 * 1024 }, s.ctx)).rejects.toThrow(/does not fit/);
    expect(await errorCode(() => addSwapFile.preview({ path: "/nonexistent-dir-hg/swap", size_mib: 16 }, s.ctx))).toBe("invalid_params");
    for (const bad of ["swapfile", "/etc/swap", "/proc/x", "/var/../etc/x", "/a//b", "/a b"]) expect(addSwapFile.params.safeParse({ path: bad, size_mib: 16 }).success, bad).toBe(false);
    expect(addSwapFile.params.safeParse({ path: "/swapfile", size_mib: 8 }).success).toBe(false);
  });
});
