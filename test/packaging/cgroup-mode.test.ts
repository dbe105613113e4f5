import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cgroupMode, hybridAdvice } from "../../scripts/cgroup-mode.ts";

// Issue 25 re-trial 5: `npm run image` failed on a hybrid-cgroup host with crun's "cgroups in hybrid mode not
// supported" and no way out; build-image.ts now names one when podman fails on such a host.

describe("cgroupMode", () => {
  it("cgroup2fs is v2; tmpfs with a unified/ mount is hybrid; tmpfs without is v1", () => {
    expect(cgroupMode("cgroup2fs", false)).toBe("v2");
    expect(cgroupMode("tmpfs", true)).toBe("hybrid");
    expect(cgroupMode("tmpfs", false)).toBe("v1");
  });

  it("reads this machine as stat(1) and the filesystem show it", () => {
    const fsType = spawnSync("stat", ["-fc", "%T", "/sys/fs/cgroup"], { encoding: "utf8" }).stdout.trim();
    const mode = cgroupMode(fsType, existsSync("/sys/fs/cgroup/unified"));
    const mounts = spawnSync("findmnt", ["-n", "-o", "FSTYPE", "/sys/fs/cgroup/unified"], { encoding: "utf8" }).stdout.trim();
    expect(mode === "hybrid").toBe(mounts === "cgroup2");
  });
});

describe("hybridAdvice", () => {
  it("names both ways out and repeats the command to run again inside the private namespace", () => {
    const text = hybridAdvice("npm run image -- --from /usr/lib/hostgate");
    expect(text).toContain("systemd.unified_cgroup_hierarchy=1");
    expect(text).toContain("cgroups = \"disabled\"");
    expect(text).toContain("unshare --mount --propagation private sh -c 'umount /sys/fs/cgroup/unified; npm run image -- --from /usr/lib/hostgate'");
  });
});
