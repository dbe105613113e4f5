import { describe, expect, it } from "vitest";
import { summarizeRuleset } from "./get-firewall-ruleset.ts";
import { parseAptUpgrades, parseDnfCheckUpdate } from "./list-upgradable-packages.ts";
import { limitsDropIn, lineDiff } from "./set-unit-resource-limits.ts";

describe("ListUpgradablePackages parsers", () => {
  it("apt-get -s: upgrades only, every origin kept, -security suites marked (lines captured from apt 2.6)", () => {
    const out = parseAptUpgrades([
      "Inst base-files [12.4+deb12u11] (12.4+deb12u15 Debian:12.15/oldstable [amd64])",
      "Inst libgcrypt20 [1.10.1-3] (1.10.1-3+deb12u1 Debian:12.15/oldstable, Debian-Security:12/oldstable-security [amd64])",
      "Inst liblzma-dev [5.4.1-1] (5.4.1-1+deb12u2 Debian-Security:12/oldstable-security [amd64]) []",
      "Inst newpkg (1.0 Debian:12.15/oldstable [amd64])",
      "Conf base-files (12.4+deb12u15 Debian:12.15/oldstable [amd64])",
    ].join("\n"));
    expect(out).toEqual([
      { name: "base-files", from_version: "12.4+deb12u11", to_version: "12.4+deb12u15", origins: ["Debian:12.15/oldstable"], security: false },
      { name: "libgcrypt20", from_version: "1.10.1-3", to_version: "1.10.1-3+deb12u1", origins: ["Debian:12.15/oldstable", "Debian-Security:12/oldstable-security"], security: true },
      { name: "liblzma-dev", from_version: "5.4.1-1", to_version: "5.4.1-1+deb12u2", origins: ["Debian-Security:12/oldstable-security"], security: true },
    ]);
  });

  it("dnf check-update rows (written from dnf 4's layout; no Fedora host here)", () => {
    const out = parseDnfCheckUpdate("\nopenssl.x86_64    1:3.1.1-4.fc39    updates\nbash.x86_64  5.2.26-1.fc39  updates\nObsoleting Packages\nx.noarch 1 y\n", new Map([["openssl", "1:3.1.1-2.fc39"]]), new Set(["openssl"]));
    expect(out).toEqual([
      { name: "openssl", from_version: "1:3.1.1-2.fc39", to_version: "1:3.1.1-4.fc39", origins: ["updates"], security: true },
      { name: "bash", from_version: "", to_version: "5.2.26-1.fc39", origins: ["updates"], security: false },
    ]);
  });
});

describe("GetFirewallRuleset summary", () => {
  it("counts chains, rules, sets and maps per table (family + name: same name in two families stays apart)", () => {
    const objects = [
      { table: { family: "inet", name: "filter" } }, { table: { family: "ip", name: "filter" } },
      { chain: { family: "inet", table: "filter", name: "input" } }, { rule: { family: "inet", table: "filter", chain: "input" } },
      { rule: { family: "inet", table: "filter", chain: "input" } }, { set: { family: "ip", table: "filter", name: "s" } }, { map: { family: "ip", table: "filter", name: "m" } },
    ];
    expect(summarizeRuleset(objects)).toEqual([
      { family: "inet", name: "filter", chains: 1, rules: 2, sets: 0 },
      { family: "ip", name: "filter", chains: 0, rules: 0, sets: 2 },
    ]);
  });
});

describe("SetUnitResourceLimits drop-in", () => {
  it("holds exactly the limits given; the diff shows what goes and what comes", () => {
    const a = limitsDropIn({ unit: "x.service", memory_max: "512M", tasks_max: "infinity" });
    expect(a).toBe("# Written by hostgate (SetUnitResourceLimits). Change it through hostgate, or delete it and run daemon-reload.\n[Service]\nMemoryMax=512M\nTasksMax=infinity\n");
    const b = limitsDropIn({ unit: "x.service", cpu_quota_percent: 150 });
    expect(lineDiff(a, b)).toBe("-MemoryMax=512M\n-TasksMax=infinity\n+CPUQuota=150%");
    expect(lineDiff(null, b).split("\n")).toHaveLength(3);
  });
});
