import { describe, expect, it } from "vitest";
import { aliasesOf, mountsOf, type MountEntry } from "./mounts.ts";

const m = (dev: string, root: string, point: string): MountEntry => ({ dev, root, point });

describe("other mounts of a hidden path (bubblewrap hides by mount identity)", () => {
  const table = [
    m("254:0", "/", "/"),
    m("0:25", "/", "/run"),
    m("254:0", "/home", "/mnt/h"), // a second bind mount of /home
    m("254:0", "/home/alice", "/srv/alice"), // a bind of a directory below it
    m("254:0", "/", "/mnt/rootfs"), // the whole root file system again
    m("254:0", "/etc/shadow", "/opt/shadow-copy"), // a bound file
    m("254:0", "/var", "/mnt/var"), // a bind of a directory above nothing hidden
    m("0:25", "/hostgate", "/mnt/rh"), // a second mount of the tmpfs /run is on, at /run/hostgate
  ];

  it("finds binds of the path, of what lies below it and of what lies above it", () => {
    expect(aliasesOf("/home", table).sort()).toEqual(["/mnt/h", "/mnt/rootfs/home", "/srv/alice"]);
    expect(aliasesOf("/etc/shadow", table).sort()).toEqual(["/mnt/rootfs/etc/shadow", "/opt/shadow-copy"]);
    expect(aliasesOf("/run/hostgate", table)).toEqual(["/mnt/rh"]);
    // A path on a device mounted once, or on no listed mount, has none.
    expect(aliasesOf("/proc/x", [m("0:5", "/", "/proc"), ...table.slice(0, 1)])).toEqual([]);
    expect(aliasesOf("/x", [])).toEqual([]);
  });

  it("takes the top of stacked mounts and the longest mount point as the path's own", () => {
    const stacked = [m("254:0", "/", "/"), m("254:0", "/a", "/home"), m("0:40", "/", "/home"), m("0:40", "/", "/elsewhere")];
    expect(aliasesOf("/home/u", stacked)).toEqual(["/elsewhere/u"]);
  });

  it("reads the probe's mountinfo lines with the one mountinfo parser (escapes undone, malformed lines skipped)", () => {
    expect(mountsOf([
      "36 25 254:0 /home/a\\040b /mnt/x\\134y rw,relatime shared:1 - ext4 /dev/vda rw",
      "not a mountinfo line",
      "37 25 0:5 / /proc rw - proc proc rw",
    ])).toEqual([{ dev: "254:0", root: "/home/a b", point: "/mnt/x\\y" }, { dev: "0:5", root: "/", point: "/proc" }]);
  });
});
