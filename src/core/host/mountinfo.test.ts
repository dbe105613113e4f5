import { describe, expect, it } from "vitest";
import { isReadOnlyMount, mountOf, parseMountinfo, PSEUDO_FS_TYPES, reachableMounts, unescapeMountField, visibleMounts } from "./mountinfo.ts";

describe("unescapeMountField", () => {
  it("decodes the kernel's octal escapes", () => {
    expect(unescapeMountField("/mnt/my\\040disk")).toBe("/mnt/my disk");
    expect(unescapeMountField("a\\011b\\012c\\134d")).toBe("a\tb\nc\\d");
  });

  it("leaves text without escapes and non-octal backslashes alone", () => {
    expect(unescapeMountField("/var/lib/docker")).toBe("/var/lib/docker");
    expect(unescapeMountField("a\\09b")).toBe("a\\09b");
  });
});

describe("parseMountinfo", () => {
  it("parses lines with and without optional fields, keeping the file system's own (super) options", () => {
    const text = [
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro",
      "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
      "24 22 0:5 / /dev rw,nosuid shared:2 master:1 propagate_from:1 - devtmpfs udev rw,size=8000k",
    ].join("\n");
    expect(parseMountinfo(text)).toEqual([
      { mount_id: 22, parent_id: 1, device: "8:1", root: "/", mount_point: "/", options: "rw,relatime", fs_type: "ext4", source: "/dev/sda1", super_options: "rw,errors=remount-ro" },
      { mount_id: 23, parent_id: 22, device: "0:21", root: "/", mount_point: "/proc", options: "rw,nosuid,nodev,noexec,relatime", fs_type: "proc", source: "proc", super_options: "rw" },
      { mount_id: 24, parent_id: 22, device: "0:5", root: "/", mount_point: "/dev", options: "rw,nosuid", fs_type: "devtmpfs", source: "udev", super_options: "rw,size=8000k" },
    ]);
  });

  it("decodes escaped spaces in the mount point and source", () => {
    const [m] = parseMountinfo("40 22 8:17 / /media/USB\\040Stick rw - vfat /dev/sdb\\0401 rw\n");
    expect(m).toMatchObject({ mount_point: "/media/USB Stick", source: "/dev/sdb 1", fs_type: "vfat" });
  });

  it("skips blank and malformed lines (no separator, nothing after it)", () => {
    const text = ["", "1 2 3:4 / /x rw ext4 /dev/x rw", "5 6 7:8 / /y rw - ext4", "9 1 0:1 / /ok rw - tmpfs tmpfs rw", ""].join("\n");
    expect(parseMountinfo(text).map((m) => m.mount_point)).toEqual(["/ok"]);
  });
});

describe("PSEUDO_FS_TYPES", () => {
  it("lists kernel interfaces but not data file systems", () => {
    expect(PSEUDO_FS_TYPES.has("proc")).toBe(true);
    expect(PSEUDO_FS_TYPES.has("cgroup2")).toBe(true);
    expect(PSEUDO_FS_TYPES.has("ext4")).toBe(false);
    expect(PSEUDO_FS_TYPES.has("tmpfs")).toBe(false);
  });
});

describe("visibleMounts (one row per file system, as df shows)", () => {
  // The mountinfo of this machine: /dev/shm and /dev/pts mounted twice, /run/netns a bind mount of /.
  const text = [
    "24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw",
    "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684084k",
    "26 24 0:24 / /dev/pts rw,relatime - devpts devpts rw,mode=600",
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard",
    "29 26 0:26 / /dev/pts rw,relatime - devpts devpts rw,mode=600",
    "30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684084k",
    "42 27 254:0 /run/netns /run/netns rw,relatime shared:1 - ext4 /dev/vda rw,discard",
  ].join("\n");
  it("keeps the last mount of an over-mounted point and the root-of-device entry of bind mounts", () => {
    expect(visibleMounts(parseMountinfo(text)).map((m) => [m.mount_id, m.mount_point])).toEqual([[24, "/dev"], [27, "/"], [29, "/dev/pts"], [30, "/dev/shm"]]);
  });
  it("prefers root / over a shorter bind-mounted subtree, then the shorter mount point", () => {
    const binds = ["50 1 8:2 /sub /a rw - ext4 /dev/sdb rw", "51 1 8:2 / /data/long rw - ext4 /dev/sdb rw", "52 1 8:2 / /d rw - ext4 /dev/sdb rw"].join("\n");
    expect(visibleMounts(parseMountinfo(binds)).map((m) => m.mount_point)).toEqual(["/d"]);
  });
});

describe("mountOf / isReadOnlyMount (which mount holds a path)", () => {
  // An nspawn container's /proc/sys: proc read-write, /proc/sys bound read-only over it, /proc/sys/net again on top.
  const text = [
    "60 59 0:50 / / rw,relatime - ext4 /dev/vda rw",
    "61 60 0:51 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
    "62 61 0:51 /sys /proc/sys ro,nosuid,nodev,noexec,relatime - proc proc rw",
    "63 62 0:51 /sys/net /proc/sys/net rw,nosuid,nodev,noexec,relatime - proc proc rw",
    "64 61 0:51 /sys /proc/sys ro,relatime - proc proc rw",
    "65 60 0:52 / /procs rw - tmpfs tmpfs rw",
  ].join("\n");
  const mounts = parseMountinfo(text);
  it("takes the longest mount point that is the path or a parent directory, and of stacked mounts the last", () => {
    expect(mountOf(mounts, "/proc/sys/net/ipv4/ip_forward")?.mount_id).toBe(63);
    expect(mountOf(mounts, "/proc/sys/kernel/hostname")?.mount_id).toBe(64);
    expect(mountOf(mounts, "/proc/sysrq-trigger")?.mount_id).toBe(61);
    expect(mountOf(mounts, "/procs/x")?.mount_id).toBe(65);
    expect(mountOf(mounts, "/etc/passwd")?.mount_id).toBe(60);
    expect(mountOf([], "/etc")).toBeNull();
  });
  it("reads ro from the per-mount options only (the superblock's rw does not count)", () => {
    expect(isReadOnlyMount(mountOf(mounts, "/proc/sys/kernel/x")!)).toBe(true);
    expect(isReadOnlyMount(mountOf(mounts, "/proc/sys/net/x")!)).toBe(false);
  });
});

describe("over-mounts: the mount a lookup reaches, by parent id (review: mountOf picked a hidden mount)", () => {
  // Real /proc/self/mountinfo lines (Linux 6.18, this machine, in `unshare --mount`): tmpfs `lower` on /t/a, tmpfs
  // `inner` on /t/a/b, then tmpfs `upper` mounted over /t/a (its parent is `lower`, 583). `stat -c %d /t/a/b`
  // then gave 82 (0:82, `upper`): /t/a/b is upper's own directory, and `inner` (584) is unreachable.
  const text = [
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard",
    "446 27 0:40 / /tmp rw,nosuid,nodev - tmpfs tmpfs rw",
    "583 446 0:80 / /tmp/hgmnt-Xh9c/a rw,relatime - tmpfs lower rw,size=1024k",
    "584 583 0:81 / /tmp/hgmnt-Xh9c/a/b rw,relatime - tmpfs inner rw,size=1024k",
    "585 583 0:82 / /tmp/hgmnt-Xh9c/a rw,relatime - tmpfs upper rw,size=1024k",
  ].join("\n");
  const mounts = parseMountinfo(text);
  it("a path below a mount that was mounted over is on the top mount, not on the hidden child listed before it", () => {
    expect(mountOf(mounts, "/tmp/hgmnt-Xh9c/a/b/file")?.source).toBe("upper");
    expect(mountOf(mounts, "/tmp/hgmnt-Xh9c/a/b")?.device).toBe("0:82");
    expect(mountOf(mounts, "/tmp/hgmnt-Xh9c/a")?.source).toBe("upper");
    expect(mountOf(mounts, "/tmp/x")?.mount_id).toBe(446);
  });
  it("the top of a stack is found by parent id even when it is not listed last", () => {
    // The same stack, lines reordered (mountinfo order is not a promise: move_mount(2) MOVE_MOUNT_BENEATH puts a mount under another).
    const shuffled = parseMountinfo(text.split("\n").reverse().join("\n"));
    expect(mountOf(shuffled, "/tmp/hgmnt-Xh9c/a/b/file")?.source).toBe("upper");
  });
  it("reachableMounts drops the covered mount and everything inside it; df's view keeps one row for the point", () => {
    expect(reachableMounts(mounts).map((m) => m.mount_id)).toEqual([27, 446, 585]);
    expect(visibleMounts(mounts).map((m) => m.source)).toEqual(["/dev/vda", "tmpfs", "upper"]);
  });
  it("a parent id loop (a malformed file) ends", () => {
    const loop = parseMountinfo(["1 2 0:1 / /x rw - tmpfs a rw", "2 1 0:2 / /x/y rw - tmpfs b rw"].join("\n"));
    expect(mountOf(loop, "/x/y/z")?.source).toBe("b");
  });
});
