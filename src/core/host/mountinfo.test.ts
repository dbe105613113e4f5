import { describe, expect, it } from "vitest";
import { parseMountinfo, PSEUDO_FS_TYPES, unescapeMountField } from "./mountinfo.ts";

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
  it("parses lines with and without optional fields", () => {
    const text = [
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro",
      "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
      "24 22 0:5 / /dev rw,nosuid shared:2 master:1 propagate_from:1 - devtmpfs udev rw,size=8000k",
    ].join("\n");
    expect(parseMountinfo(text)).toEqual([
      { mount_id: 22, mount_point: "/", options: "rw,relatime", fs_type: "ext4", source: "/dev/sda1" },
      { mount_id: 23, mount_point: "/proc", options: "rw,nosuid,nodev,noexec,relatime", fs_type: "proc", source: "proc" },
      { mount_id: 24, mount_point: "/dev", options: "rw,nosuid", fs_type: "devtmpfs", source: "udev" },
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
