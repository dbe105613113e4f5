import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Preview } from "../../src/core/catalogue/action.ts";
import addSwapFile from "../../src/core/catalogue/actions/add-swap-file.ts";
import removeSwapFile from "../../src/core/catalogue/actions/remove-swap-file.ts";
import { previewHashInput } from "../../src/core/transaction/preview-hash.ts";
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

  // Review (s24): RemoveSwapFile ran `swapoff PATH` and deleted PATH by name, and its preview did not carry the
  // file's identity. The kernel refuses to rename or unlink an active swap file (EPERM), but not to rename the
  // directory above it: with da/ (active swap A) renamed away and db/ (active swap B, same size) renamed to da/,
  // /proc/swaps names B at the approved path, the preview hashed the same, and execute turned B off and deleted it.
  it("a swap file replaced after the preview (its directory renamed, another active swap file's moved in) is refused plan_changed; nothing is turned off", async () => {
    const [da, db, old] = ["da", "db", "da.old"].map((n) => join(dir, n));
    const path2 = join(da!, "swap");
    try {
      for (const d of [da!, db!]) {
        const f = join(d, "swap");
        for (const argv of [["mkdir", "-m", "700", d], ["fallocate", "-l", "16M", f], ["chmod", "600", f], ["mkswap", f], ["swapon", f]]) expect(spawnSync(argv[0]!, argv.slice(1)).status, argv.join(" ")).toBe(0);
      }
      const hash = (p: Preview): string => previewHashInput("RemoveSwapFile", "local", { path: path2 }, p, "salt");
      const approved = await removeSwapFile.preview({ path: path2 }, s.ctx);
      const inodeA = statSync(path2).ino;
      renameSync(da!, old!);
      renameSync(db!, da!);
      expect(statSync(path2).ino).not.toBe(inodeA);
      expect(swaps()).toContain(`${path2} `); // B, listed under the approved path
      // execute re-computes the preview under its lock and refuses when the hash differs (app/execute.ts)
      const fresh = await removeSwapFile.preview({ path: path2 }, s.ctx);
      expect(hash(fresh)).not.toBe(hash(approved));
      // and apply, given the approved preview, refuses too (identity checked again just before swapoff)
      expect(await errorCode(() => removeSwapFile.apply({ path: path2 }, s.ctx, approved))).toBe("plan_changed");
      expect(swaps()).toContain(`${path2} `);
      expect(swaps()).toContain(`${join(old!, "swap")} `);
      expect(existsSync(path2)).toBe(true);
    } finally {
      for (const d of [da!, db!, old!]) if (existsSync(join(d, "swap"))) spawnSync("swapoff", [join(d, "swap")]);
      for (const d of [da!, db!, old!]) rmSync(d, { recursive: true, force: true });
    }
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
