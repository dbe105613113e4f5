// The dnf/rpm paths (Fedora family) cannot run on this Debian machine: their parsers on planted output files
// (test/fixtures/dnf/, written from the tools' documented formats, not captured from a live Fedora host).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseRpmList } from "../src/core/catalogue/actions/list-installed-packages.ts";
import { parseDnfCheckUpdate, parseDnfSecurityNames, parseRpmVersions } from "../src/core/catalogue/actions/list-upgradable-packages.ts";
import { versionLocked } from "../src/core/catalogue/actions/package-hold.ts";
import { parseRpmQuery } from "../src/core/catalogue/actions/package-tools.ts";
import { parseDnfSearch } from "../src/core/catalogue/actions/search-packages.ts";
import { parseDnfRepolist } from "../src/core/catalogue/actions/update-package-index.ts";

const fixture = (name: string): string => readFileSync(new URL(`fixtures/dnf/${name}`, import.meta.url), "utf8");

describe("versionlock list (HoldPackage / UnholdPackage on Fedora)", () => {
  it("dnf 4: NAME-[EPOCH:]VERSION-RELEASE.* locks NAME; a longer name sharing the prefix and an exclude (!) do not", () => {
    const text = fixture("versionlock-list-dnf4.txt");
    expect(versionLocked(text, "bash")).toBe(true);
    expect(versionLocked(text, "openssl-libs")).toBe(true);
    expect(versionLocked(text, "python3")).toBe(true);
    expect(versionLocked(text, "openssl")).toBe(false);
    expect(versionLocked(text, "kernel")).toBe(false);
    expect(versionLocked(text, "bash-completion")).toBe(false);
  });
  it("dnf 5: a `Package name: NAME` line locks exactly NAME", () => {
    const text = fixture("versionlock-list-dnf5.txt");
    expect(versionLocked(text, "bash")).toBe(true);
    expect(versionLocked(text, "openssl-libs")).toBe(true);
    expect(versionLocked(text, "openssl")).toBe(false);
    expect(versionLocked("", "bash")).toBe(false);
  });
  it("a name with regex characters (+ .) is matched literally", () => {
    expect(versionLocked("libstdc++-0:13.2.1-4.fc39.*\n", "libstdc++")).toBe(true);
    expect(versionLocked("libstdcxx-0:13.2.1-4.fc39.*\n", "libstdc++")).toBe(false);
    expect(versionLocked("python3-1-1.*\n", "python3.12")).toBe(false);
  });
});

describe("rpm queries", () => {
  it("rpm -qa (ListInstalledPackages): name, version-release, arch ((none) → null), size in bytes; multilib rows kept apart", () => {
    expect(parseRpmList(fixture("rpm-qa.txt"))).toEqual([
      { name: "bash", version: "5.2.26-1.fc39", architecture: "x86_64", installed_size_bytes: 8312419 },
      { name: "gpg-pubkey", version: "18b8e74c-62f2920f", architecture: null, installed_size_bytes: 0 },
      { name: "openssl-libs", version: "3.1.1-4.fc39", architecture: "x86_64", installed_size_bytes: 6311702 },
      { name: "glibc", version: "2.38-14.fc39", architecture: "i686", installed_size_bytes: 17203940 },
      { name: "glibc", version: "2.38-14.fc39", architecture: "x86_64", installed_size_bytes: 6700044 },
    ]);
  });
  it("rpm -q NAMES (installed versions): `is not installed` lines skipped", () => {
    expect([...parseRpmQuery(fixture("rpm-q.txt"))]).toEqual([["bash", "5.2.26-1.fc39"], ["openssl-libs", "3.1.1-4.fc39"]]);
    expect([...parseRpmVersions(fixture("rpm-q.txt"))]).toEqual([["bash", "5.2.26-1.fc39"], ["openssl-libs", "3.1.1-4.fc39"]]);
  });
});

describe("ListUpgradablePackages on Fedora", () => {
  it("check-update rows up to `Obsoleting Packages`, security from updateinfo (epochs and -libs names kept)", () => {
    const sec = parseDnfSecurityNames(fixture("updateinfo-list-security.txt"));
    expect([...sec].sort()).toEqual(["curl", "libcurl", "openssl-libs"]);
    const out = parseDnfCheckUpdate(fixture("check-update.txt"), parseRpmQuery(fixture("rpm-q.txt")), sec);
    expect(out).toEqual([
      { name: "bash", from_version: "5.2.26-1.fc39", to_version: "5.2.26-3.fc39", origins: ["updates"], security: false },
      { name: "openssl-libs", from_version: "3.1.1-4.fc39", to_version: "1:3.1.4-1.fc39", origins: ["updates"], security: true },
      { name: "curl", from_version: "", to_version: "8.2.1-4.fc39", origins: ["updates"], security: true },
    ]);
  });
});

describe("repositories and search", () => {
  it("dnf repolist --enabled: the header skipped, one source per repo id", () => {
    expect(parseDnfRepolist(fixture("repolist-enabled.txt")).map((s) => s.uri)).toEqual(["fedora", "fedora-cisco-openh264", "updates"]);
    expect(parseDnfRepolist(fixture("repolist-enabled.txt"))[0]).toEqual({ type: "rpm-md", uri: "fedora", suite: "", component: "" });
  });
  it("dnf search: rows NAME.ARCH : SUMMARY, section banners skipped, arch dropped, a summary with ' : ' kept whole", () => {
    expect(parseDnfSearch(fixture("search-bash.txt"))).toEqual([
      { name: "bash", summary: "The GNU Bourne Again shell" },
      { name: "bash-completion", summary: "Programmable completion for Bash" },
      { name: "bash-color-prompt", summary: "Color prompt for bash shell : with colons" },
    ]);
  });
});
