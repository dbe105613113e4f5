/**
 * The helper cache's check (core/sandbox/helper-cache.ts) against real files, links and modes on this machine
 * (the check line runs in /bin/sh as on an SSH host), the probe's `home`, the ELF facts the daemon sends by
 * (adapters/confine-helper.ts), and how a helper that could not be placed is reported (task s19).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { elfFacts } from "../../src/adapters/confine-helper.ts";
import { chooseSandbox, parseProbe, type SandboxFacts } from "../../src/core/sandbox/confine.ts";
import { helperCachePath, helperCheckCommand, judgeHelperCheck, plainAbsolutePath } from "../../src/core/sandbox/helper-cache.ts";
import { testConfineHelper } from "../support/confine-helper.ts";

const root = process.getuid?.() === 0;
const made: string[] = [];
afterAll(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

describe.skipIf(!root)("the helper cache check, on real files (root: the owners matter)", () => {
  const sha = createHash("sha256").update("helper bytes").digest("hex");
  /** A fresh home under /var/lib (root-owned, not sticky, unlike /tmp) holding the cache with the right file. */
  const home = (): { home: string; path: string } => {
    const h = mkdtempSync("/var/lib/hg-s19-home-");
    made.push(h);
    chmodSync(h, 0o700);
    const path = helperCachePath(h, sha);
    mkdirSync(join(h, ".cache", "hostgate"), { recursive: true, mode: 0o700 });
    writeFileSync(path, "helper bytes", { mode: 0o700 });
    return { home: h, path };
  };
  const judge = (path: string): string | null => judgeHelperCheck(spawnSync("/bin/sh", ["-c", helperCheckCommand(path)], { encoding: "utf8" }).stdout, path, sha);

  it("passes the build's file in root-only directories", () => {
    expect(judge(home().path)).toBeNull();
  });

  it("reports a missing file as missing, and another file by its hash", () => {
    const { path } = home();
    expect(judgeHelperCheck(spawnSync("/bin/sh", ["-c", helperCheckCommand(`${path}x`)], { encoding: "utf8" }).stdout, `${path}x`, sha)).toBe("missing");
    writeFileSync(path, "other bytes");
    expect(judge(path)).toMatch(new RegExp(`^${path} holds another file \\(SHA-256 [0-9a-f]{12}…, expected ${sha.slice(0, 12)}…\\)$`));
  });

  it("refuses what a non-root user could change: an owner, a group or everyone with write, a sticky directory, a link, no exec bit", () => {
    const cases: [string, (h: string, path: string) => void, RegExp][] = [
      ["file owned by a user", (_h, p) => { chownSync(p, 1000, 1000); }, /hostgate-confine-[0-9a-f]+ is owned by uid 1000$/],
      ["cache dir writable by its group", (h) => { chownSync(join(h, ".cache", "hostgate"), 0, 1000); chmodSync(join(h, ".cache", "hostgate"), 0o770); }, /\/\.cache\/hostgate is writable by group 1000$/],
      ["home writable by everyone, sticky", (h) => { chmodSync(h, 0o1777); }, /hg-s19-home-\w+ is writable by everyone \(sticky is not enough here\)$/],
      ["file not executable", (_h, p) => { chmodSync(p, 0o600); }, /is not executable$/],
    ];
    for (const [what, spoil, why] of cases) {
      const { home: h, path } = home();
      spoil(h, path);
      expect(judge(path), what).toMatch(why);
    }
    // A symbolic link on the way (the cache directory pointing elsewhere), even to a root-only place.
    const { home: h } = home();
    const elsewhere = mkdtempSync("/var/lib/hg-s19-elsewhere-");
    made.push(elsewhere);
    chmodSync(elsewhere, 0o700);
    copyFileSync(helperCachePath(h, sha), join(elsewhere, `hostgate-confine-${sha}`));
    chmodSync(join(elsewhere, `hostgate-confine-${sha}`), 0o700);
    rmSync(join(h, ".cache", "hostgate"), { recursive: true });
    symlinkSync(elsewhere, join(h, ".cache", "hostgate"));
    expect(judge(helperCachePath(h, sha))).toMatch(/\/\.cache\/hostgate is not a directory \(a symbolic link or another type\)$/);
  });
});

describe("the helper cache's inputs", () => {
  it("names files by a whole SHA-256 only, in plain absolute paths", () => {
    expect(helperCachePath("/root", "a".repeat(64))).toBe(`/root/.cache/hostgate/hostgate-confine-${"a".repeat(64)}`);
    expect(helperCachePath("/", "b".repeat(64))).toBe(`/.cache/hostgate/hostgate-confine-${"b".repeat(64)}`);
    expect(() => helperCachePath("/root", "abc")).toThrow(/not a SHA-256/);
    for (const bad of ["root", "/ro ot", "/root/../etc", "/root/$(id)", "/root;rm", "/a/./b", "/root\n"]) expect(plainAbsolutePath(bad), bad).toBe(false);
    expect(() => helperCheckCommand("/root/$(id)")).toThrow(/not a plain absolute path/);
  });

  it("the probe reads the login's home only when it is a plain absolute path", () => {
    const base = "hostgate-probe:uid=0\nhostgate-probe:arch=x86_64\n";
    expect(parseProbe(`${base}hostgate-probe:home=/root\n`).home).toBe("/root");
    for (const bad of ["", "relative", "/home/a b", "/root/../etc", "/x/$(id)"]) expect(parseProbe(`${base}hostgate-probe:home=${bad}\n`).home, bad).toBeUndefined();
  });

  it("ELF facts: the static helper build is sent, a dynamic program and a non-ELF file are not", () => {
    const built = testConfineHelper();
    if ("path" in built) expect(elfFacts(readFileSync(built.path))).toEqual({ arch: process.arch === "arm64" ? "aarch64" : "x86_64", static: true });
    expect(elfFacts(readFileSync("/bin/sh"))?.static).toBe(false);
    expect(elfFacts(Buffer.from("#!/bin/sh\necho hi\n"))).toBeNull();
  });

  it("a helper that could not be placed is said in the summary of the mechanism chosen instead", () => {
    const f: SandboxFacts = { uid: 0, arch: "x86_64", programs: { bwrap: "/usr/bin/bwrap", setpriv: "/usr/bin/setpriv" }, systemd: false, log_groups: [] };
    const sb = chooseSandbox(f, { "hostgate-confine": "the host is x86_64, the daemon's helper build aarch64" });
    expect(sb.mechanism).toBe("bwrap");
    expect(sb.summary).toMatch(/; hostgate-confine not used: the host is x86_64, the daemon's helper build aarch64$/);
    expect(chooseSandbox(f).summary).not.toContain("hostgate-confine");
  });
});
