import { describe, expect, it } from "vitest";
import { parseDnfSimulation } from "./dnf-simulation.ts";

// dnf 4 layout, written from its documented table (not captured on a live Fedora host).
const DNF_INSTALL = `Last metadata expiration check: 0:10:00 ago.
Dependencies resolved.
================================================================================
 Package           Architecture   Version               Repository        Size
================================================================================
Installing:
 nginx             x86_64         1:1.24.0-1.fc39       updates           35 k
Installing dependencies:
 nginx-core        x86_64         1:1.24.0-1.fc39       updates          581 k
Upgrading:
 openssl-libs      x86_64         1:3.1.1-4.fc39        updates          2.2 M
Removing:
 old-thing         noarch         1.0-1.fc39            @System           10 k

Transaction Summary
================================================================================
Install  2 Packages

Total download size: 616 k
Operation aborted.
`;

describe("parseDnfSimulation", () => {
  it("reads the transaction table by section", () => {
    const { changes } = parseDnfSimulation(DNF_INSTALL);
    expect(changes).toEqual([
      { action: "install", name: "nginx", from_version: null, to_version: "1:1.24.0-1.fc39", arch: "x86_64" },
      { action: "install", name: "nginx-core", from_version: null, to_version: "1:1.24.0-1.fc39", arch: "x86_64" },
      { action: "upgrade", name: "openssl-libs", from_version: null, to_version: "1:3.1.1-4.fc39", arch: "x86_64" },
      { action: "remove", name: "old-thing", from_version: "1.0-1.fc39", to_version: null, arch: "noarch" },
    ]);
  });

  it("turns protected-package problems into warnings", () => {
    const { changes, warnings } = parseDnfSimulation("Error: \n Problem: The operation would result in removing the following protected packages: systemd\n");
    expect(changes).toEqual([]);
    expect(warnings.some((w) => w.includes("protected packages: systemd"))).toBe(true);
  });
});
