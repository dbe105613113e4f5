import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import findLargeFiles from "../../src/core/catalogue/actions/find-large-files.ts";
import getInodeUsage from "../../src/core/catalogue/actions/get-inode-usage.ts";
import listBlockDevices from "../../src/core/catalogue/actions/list-block-devices.ts";
import listMounts from "../../src/core/catalogue/actions/list-mounts.ts";
import listSwap, { parseSwaps } from "../../src/core/catalogue/actions/list-swap.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

/** Issue 24, storage toolset: each action against lsblk, findmnt, df -i and swapon on this machine. */
let ctx: ActionContext;
let dir: string;
const sh = (cmd: string, args: string[]): string => execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
beforeAll(async () => {
  ctx = await realContext();
  dir = mkdtempSync(join(tmpdir(), "hostgate-storage-"));
});
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe("ListBlockDevices", () => {
  type Lsblk = { name: string; "maj:min": string; size: number; ro: boolean; rm: boolean; type: string; rota: boolean; model: string | null; mountpoints: (string | null)[]; children?: Lsblk[] };
  const shape = (d: Lsblk): unknown => ({
    name: d.name, maj_min: d["maj:min"], size_bytes: d.size, read_only: d.ro, removable: d.rm, type: d.type, rotational: d.rota, model: d.model,
    mount_points: d.mountpoints.filter((m) => m !== null).sort(), children: (d.children ?? []).map(shape),
  });

  it("lists what lsblk -a -J -b lists (with include_empty), with sizes, flags, types and mount points", async () => {
    const r = await listBlockDevices.run({ include_empty: true }, ctx);
    const lsblk = JSON.parse(sh("lsblk", ["-a", "-J", "-b", "-o", "NAME,MAJ:MIN,SIZE,RO,RM,TYPE,ROTA,MODEL,MOUNTPOINTS"])) as { blockdevices: Lsblk[] };
    const ours = r.devices.map((d) => ({ ...d, mount_points: [...d.mount_points].sort(), children: d.children.map((c) => ({ ...c, mount_points: [...c.mount_points].sort() })) }));
    expect(ours.sort((a, b) => a.name.localeCompare(b.name))).toEqual(lsblk.blockdevices.map(shape).sort((a, b) => (a as { name: string }).name.localeCompare((b as { name: string }).name)));
  });

  it("hides unused loop devices by default", async () => {
    const r = await listBlockDevices.run({ include_empty: false }, ctx);
    expect(r.devices.filter((d) => d.type === "loop" && d.size_bytes === 0)).toEqual([]);
    // Other size-0 devices stay, as lsblk without -a keeps them (an unconfigured zram here).
    const lsblk = JSON.parse(sh("lsblk", ["-J", "-b", "-d", "-o", "NAME"])) as { blockdevices: { name: string }[] };
    expect(r.devices.map((d) => d.name).sort()).toEqual(lsblk.blockdevices.map((d) => d.name).sort());
  });

  // This machine has no partition, device-mapper, RAID or optical device (and its loop driver does not scan
  // partitions): a planted sysfs tree of real files, read through the real probe with /sys, mountinfo and swaps
  // moved under a temp directory, covers what lsblk would say of them.
  it("reads partitions (uevent DEVTYPE=partition), dm/md/rom types, mounts and swap from a planted /sys/block", async () => {
    const root = join(dir, "planted");
    const plant = (path: string, content: string): void => {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), content);
    };
    const disk = (name: string, majMin: string, sectors: number, extra: Record<string, string> = {}): void => {
      const [major, minor] = majMin.split(":");
      for (const [f, c] of Object.entries({ uevent: `MAJOR=${major}\nMINOR=${minor}\nDEVNAME=${name}\nDEVTYPE=disk\nDISKSEQ=3\n`, size: `${sectors}\n`, ro: "0\n", removable: "0\n", "queue/rotational": "0\n", ...extra })) plant(`sys/block/${name}/${f}`, c);
    };
    disk("sda", "8:0", 4096, { removable: "1\n", "queue/rotational": "1\n", "device/model": "Planted Disk    \n", "device/type": "0\n" });
    plant("sys/block/sda/sda1/uevent", "MAJOR=8\nMINOR=1\nDEVNAME=sda1\nDEVTYPE=partition\nPARTN=1\n");
    plant("sys/block/sda/sda1/size", "2048\n");
    plant("sys/block/sda/sda1/ro", "1\n");
    plant("sys/block/sda/sda2/uevent", "MAJOR=8\nMINOR=2\nDEVNAME=sda2\nDEVTYPE=partition\nPARTN=2\n");
    plant("sys/block/sda/sda2/size", "1024\n");
    plant("sys/block/sda/sda2/ro", "0\n");
    disk("sr0", "11:0", 0, { removable: "1\n", "device/type": "5\n" });
    disk("dm-0", "252:0", 100, { "dm/uuid": "LVM-abcdef\n" });
    disk("md0", "9:0", 200, { "md/level": "raid1\n" });
    disk("loop0", "7:0", 0);
    disk("loop1", "7:1", 16);
    plant("proc/self/mountinfo", "30 1 8:1 / /boot rw,relatime shared:2 - ext4 /dev/sda1 rw\n31 1 252:0 / /srv rw - xfs /dev/mapper/vg-srv rw\n");
    plant("proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n/dev/sda2 partition 512 0 -2\n");
    const real = ctx.host;
    const moved = (p: string): string => (p.startsWith("/sys/") || p === "/proc/self/mountinfo" || p === "/proc/swaps" ? join(root, p) : p);
    const host = { ...real, readText: (p: string, o?: Parameters<typeof real.readText>[1]) => real.readText(moved(p), o), readDir: (p: string) => real.readDir(moved(p)) };
    const planted: ActionContext = { ...ctx, host };
    const leaf = { read_only: false, removable: false, rotational: false, model: null, mount_points: [], children: [] };
    const expected = [
      { ...leaf, name: "dm-0", maj_min: "252:0", size_bytes: 100 * 512, type: "lvm", mount_points: ["/srv"] },
      { ...leaf, name: "loop1", maj_min: "7:1", size_bytes: 16 * 512, type: "loop" },
      { ...leaf, name: "md0", maj_min: "9:0", size_bytes: 200 * 512, type: "raid1" },
      {
        ...leaf, name: "sda", maj_min: "8:0", size_bytes: 4096 * 512, removable: true, rotational: true, type: "disk", model: "Planted Disk",
        children: [
          { ...leaf, name: "sda1", maj_min: "8:1", size_bytes: 2048 * 512, read_only: true, removable: true, rotational: true, type: "part", mount_points: ["/boot"] },
          { ...leaf, name: "sda2", maj_min: "8:2", size_bytes: 1024 * 512, removable: true, rotational: true, type: "part", mount_points: ["[SWAP]"] },
        ],
      },
      { ...leaf, name: "sr0", maj_min: "11:0", size_bytes: 0, removable: true, type: "rom" },
    ];
    expect((await listBlockDevices.run({ include_empty: false }, planted)).devices).toEqual(expected);
    const all = await listBlockDevices.run({ include_empty: true }, planted);
    expect(all.devices.map((d) => d.name)).toEqual(["dm-0", "loop0", "loop1", "md0", "sda", "sr0"]);
    expect(all.devices[1]).toEqual({ ...leaf, name: "loop0", maj_min: "7:0", size_bytes: 0, type: "loop" });
  });
});

describe("ListMounts", () => {
  it("lists every mount findmnt -l lists, with the same per-mount and file-system options and subtree", async () => {
    const r = await listMounts.run(listMounts.params.parse({ include_pseudo: true, limit: 1000 }), ctx);
    type Row = { target: string; fstype: string; "vfs-options": string; "fs-options": string; fsroot: string };
    const fm = (JSON.parse(sh("findmnt", ["-J", "-l", "-o", "TARGET,FSTYPE,VFS-OPTIONS,FS-OPTIONS,FSROOT"])) as { filesystems: Row[] }).filesystems;
    expect(r.mounts.map((m) => [m.mount_point, m.fs_type, m.options.join(","), m.fs_options.join(","), m.root])).toEqual(fm.map((f) => [f.target, f.fstype, f["vfs-options"], f["fs-options"], f.fsroot]));
  });

  it("filters by type and subtree; pseudo file systems are hidden unless asked for", async () => {
    const all = await listMounts.run(listMounts.params.parse({ limit: 1000 }), ctx);
    expect(all.mounts.some((m) => m.fs_type === "proc")).toBe(false);
    const proc = await listMounts.run(listMounts.params.parse({ fs_type: "proc" }), ctx);
    expect(proc.mounts.map((m) => m.mount_point)).toContain("/proc");
    const underProc = await listMounts.run(listMounts.params.parse({ under: "/proc/", include_pseudo: true, limit: 1000 }), ctx);
    expect(underProc.mounts.every((m) => m.mount_point === "/proc" || m.mount_point.startsWith("/proc/"))).toBe(true);
  });
});

describe("GetInodeUsage", () => {
  it("gives df -i's inode figures per file system, fullest first", async () => {
    const r = await getInodeUsage.run(getInodeUsage.params.parse({}), ctx);
    const df = new Map(sh("df", ["-i", "-P"]).trim().split("\n").slice(1).map((l) => {
      const f = l.split(/\s+/);
      return [f.slice(5).join(" "), { total: Number(f[1]), used: Number(f[2]) }] as const;
    }));
    expect(r.filesystems.length).toBeGreaterThan(0);
    for (const fs of r.filesystems) {
      const d = df.get(fs.mount_point);
      expect(d, fs.mount_point).toBeDefined();
      expect(fs.inodes_total, fs.mount_point).toBe(d!.total);
      // the root file system is shared with other test runs that create files meanwhile
      expect(Math.abs(fs.inodes_used - d!.used), fs.mount_point).toBeLessThan(5000);
    }
    const pct = r.filesystems.map((f) => f.use_percent ?? -1);
    expect(pct).toEqual([...pct].sort((a, b) => b - a));
    const full = await getInodeUsage.run({ min_percent: 100 }, ctx);
    expect(full.filesystems.every((f) => (f.use_percent ?? 0) >= 100)).toBe(true);
  });
});

describe("ListSwap", () => {
  it("lists an active swap file as swapon --show does, and the totals of /proc/meminfo", async () => {
    const file = join(dir, "swapfile");
    execFileSync("dd", ["if=/dev/zero", `of=${file}`, "bs=1M", "count=16", "status=none"]);
    chmodSync(file, 0o600);
    execFileSync("mkswap", [file], { stdio: "ignore" });
    execFileSync("swapon", ["-p", "7", file]);
    try {
      const r = await listSwap.run({}, ctx);
      const shown = sh("swapon", ["--show=NAME,TYPE,SIZE,USED,PRIO", "--bytes", "--noheadings", "--raw"]).trim().split("\n").filter((l) => l !== "").map((l) => {
        const f = l.split(" ");
        return { name: f[0], type: f[1], size_bytes: Number(f[2]), used_bytes: Number(f[3]), priority: Number(f[4]) };
      });
      expect(r.areas).toEqual(shown);
      expect(r.areas.find((a) => a.name === file)).toMatchObject({ type: "file", priority: 7 });
      expect(r.total_bytes).toBe(r.areas.reduce((s, a) => s + a.size_bytes, 0));
    } finally {
      execFileSync("swapoff", [file]);
    }
    expect((await listSwap.run({}, ctx)).areas.find((a) => a.name === file)).toBeUndefined();
  });

  it("decodes octal escapes in /proc/swaps names", () => {
    expect(parseSwaps("Filename\tType\tSize\tUsed\tPriority\n/srv/swap\\040file file 1024 0 -2\n")[0]).toEqual({ name: "/srv/swap file", type: "file", size_bytes: 1024 * 1024, used_bytes: 0, priority: -2 });
  });
});

describe("FindLargeFiles", () => {
  it("finds what find -xdev -type f -size lists, biggest first, never through a symlink", async () => {
    const root = join(dir, "big");
    mkdirSync(join(root, "a", "b"), { recursive: true });
    const outside = join(dir, "outside");
    mkdirSync(outside);
    const sizes: [string, number][] = [["a/one", 3 << 20], ["a/b/two", 5 << 20], ["three", 2 << 20], ["small", 1000], ["a/b/four", 4 << 20]];
    for (const [name, size] of sizes) { writeFileSync(join(root, name), ""); truncateSync(join(root, name), size); }
    writeFileSync(join(outside, "huge"), "");
    truncateSync(join(outside, "huge"), 64 << 20);
    symlinkSync(join(outside, "huge"), join(root, "link-to-huge"));
    symlinkSync(outside, join(root, "a", "link-to-dir"));
    const r = await findLargeFiles.run(findLargeFiles.params.parse({ path: root, min_bytes: 1 << 20, limit: 3 }), ctx);
    const find = sh("find", [root, "-xdev", "-type", "f", "-size", `+${(1 << 20) - 1}c`, "-printf", "%s %p\\n"]).trim().split("\n")
      .map((l) => ({ bytes: Number(l.slice(0, l.indexOf(" "))), path: l.slice(l.indexOf(" ") + 1) })).sort((a, b) => b.bytes - a.bytes).slice(0, 3);
    expect(r.files.map(({ path, bytes }) => ({ path, bytes }))).toEqual(find);
    expect(r.complete).toBe(true);
    expect(JSON.stringify(r)).not.toContain("huge");
  });

  it("a tiny budget stops early and says so; a symlink or relative path is refused", async () => {
    const clock = { n: 0, now(): number { return (this.n += 1000); } };
    const r = await findLargeFiles.run(findLargeFiles.params.parse({ path: "/usr", budget_ms: 100 }), { ...ctx, clock });
    expect(r.complete).toBe(false);
    expect(r.note).toMatch(/budget ran out/);
    symlinkSync(dir, join(dir, "dirlink"));
    expect(await errorCode(() => findLargeFiles.run(findLargeFiles.params.parse({ path: join(dir, "dirlink") }), ctx))).toBe("invalid_params");
    expect(await errorCode(() => findLargeFiles.run(findLargeFiles.params.parse({ path: "var/log" }), ctx))).toBe("invalid_params");
    expect(await errorCode(() => findLargeFiles.run(findLargeFiles.params.parse({ path: "/var/../etc" }), ctx))).toBe("invalid_params");
  });
});
