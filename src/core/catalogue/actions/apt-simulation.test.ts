import { describe, expect, it } from "vitest";
import { parseAptSimulation, renderChanges } from "./apt-simulation.ts";

// Captured from apt 2.6 on Debian 12 (LC_ALL=C).
const INSTALL_CURL = `Reading package lists...
Building dependency tree...
Reading state information...
The following packages will be upgraded:
  curl libcurl4
2 upgraded, 0 newly installed, 0 to remove and 131 not upgraded.
Inst curl [7.88.1-10+deb12u14] (7.88.1-10+deb12u15 Debian:12.15/oldstable [amd64]) []
Inst libcurl4 [7.88.1-10+deb12u14] (7.88.1-10+deb12u15 Debian:12.15/oldstable [amd64])
Inst hello (2.10-3 Debian:12.15/oldstable [amd64])
Conf curl (7.88.1-10+deb12u15 Debian:12.15/oldstable [amd64])
Conf libcurl4 (7.88.1-10+deb12u15 Debian:12.15/oldstable [amd64])
Conf hello (2.10-3 Debian:12.15/oldstable [amd64])
`;

const REMOVE_BASH = `Reading package lists...
The following packages will be REMOVED:
  bash
WARNING: The following essential packages will be removed.
This should NOT be done unless you know exactly what you are doing!
  bash dash
0 upgraded, 0 newly installed, 1 to remove and 132 not upgraded.
Remv bash [5.2.15-2+b8]
Purg dash [0.5.12-2]
`;

describe("parseAptSimulation", () => {
  it("parses Inst lines as install/upgrade with versions and arch, ignoring Conf", () => {
    const sim = parseAptSimulation(INSTALL_CURL);
    expect(sim.changes).toEqual([
      { action: "upgrade", name: "curl", from_version: "7.88.1-10+deb12u14", to_version: "7.88.1-10+deb12u15", arch: "amd64" },
      { action: "upgrade", name: "libcurl4", from_version: "7.88.1-10+deb12u14", to_version: "7.88.1-10+deb12u15", arch: "amd64" },
      { action: "install", name: "hello", from_version: null, to_version: "2.10-3", arch: "amd64" },
    ]);
    expect(sim.warnings).toEqual([]);
  });

  it("parses Remv/Purg lines and the essential-packages warning block", () => {
    const sim = parseAptSimulation(REMOVE_BASH);
    expect(sim.changes).toEqual([
      { action: "remove", name: "bash", from_version: "5.2.15-2+b8", to_version: null, arch: null },
      { action: "purge", name: "dash", from_version: "0.5.12-2", to_version: null, arch: null },
    ]);
    expect(sim.essential_removals).toEqual(["bash", "dash"]);
    expect(sim.warnings[0]).toMatch(/^ESSENTIAL packages would be removed: bash, dash/);
  });

  it("marks reinstalls and downgrades", () => {
    const text = "The following packages will be DOWNGRADED:\n  foo\nInst foo [2.0] (1.0 Debian:x [all])\nInst bar [3] (3 Debian:x [amd64])\n";
    expect(parseAptSimulation(text).changes.map((c) => c.action)).toEqual(["downgrade", "reinstall"]);
  });

  it("surfaces held, unauthenticated and virtual-package notes", () => {
    const text = "Note, selecting 'libc6-dev' instead of 'libc-dev'\nThe following held packages will be changed:\n  linux-image\nWARNING: The following packages cannot be authenticated!\n  evil\nInst evil (1 x [all])\n";
    const w = parseAptSimulation(text).warnings;
    expect(w).toContain("Held packages would be changed: linux-image.");
    expect(w).toContain("Packages cannot be authenticated: evil.");
    expect(w).toContain("Note, selecting 'libc6-dev' instead of 'libc-dev'");
  });

  it("renders one line per change", () => {
    expect(renderChanges(parseAptSimulation(INSTALL_CURL).changes).split("\n")[0]).toBe("upgrade   curl 7.88.1-10+deb12u14 → 7.88.1-10+deb12u15 [amd64]");
    expect(renderChanges([])).toBe("(no package changes)");
  });
});
