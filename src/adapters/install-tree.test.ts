// The install-time check that nobody but root can change what the root service runs, on real files with real
// owners and modes (the test runs as root; files are handed to uid 65534 with chown).
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkInstallTree } from "./install-tree.ts";
import { untrustedWriter } from "../core/service/tree-trust.ts";

const NOBODY = 65534;
let dir: string;
let pkg: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hg-tree-"));
  chmodSync(dir, 0o755);
  pkg = join(dir, "pkg");
  mkdirSync(join(pkg, "dist"), { recursive: true, mode: 0o755 });
  mkdirSync(join(pkg, "bin"), { mode: 0o755 });
  writeFileSync(join(pkg, "package.json"), "{}", { mode: 0o644 });
  writeFileSync(join(pkg, "dist", "hostgate.js"), "", { mode: 0o644 });
  writeFileSync(join(pkg, "bin", "hostgate.js"), "", { mode: 0o755 });
});
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

const paths = (r: ReturnType<typeof checkInstallTree>): string[] => r.findings.map((f) => f.path);
const skip = process.getuid?.() !== 0;

describe.skipIf(skip)("checkInstallTree (real files, run as root)", () => {
  it("a tree only root can write has no findings; node and the directories above both are checked", () => {
    const r = checkInstallTree(process.execPath, pkg);
    expect(r.findings).toEqual([]);
    expect(r.entries).toBeGreaterThanOrEqual(6);
  });

  it("a file owned by another user, a group-writable file and a world-writable directory are each named", () => {
    chownSync(join(pkg, "dist", "hostgate.js"), NOBODY, NOBODY);
    writeFileSync(join(pkg, "bin", "g.js"), "");
    chownSync(join(pkg, "bin", "g.js"), 0, 100);
    chmodSync(join(pkg, "bin", "g.js"), 0o664);
    mkdirSync(join(pkg, "node_modules"));
    chmodSync(join(pkg, "node_modules"), 0o777);
    const r = checkInstallTree(process.execPath, pkg);
    expect(r.findings).toEqual(expect.arrayContaining([
      { path: join(pkg, "dist", "hostgate.js"), why: `owned by uid ${NOBODY}` },
      { path: join(pkg, "bin", "g.js"), why: "writable by group 100" },
      { path: join(pkg, "node_modules"), why: "writable by everyone" },
    ]));
    expect(r.total).toBe(3);
  });

  it("a directory above the package that another user owns is named (they could swap the whole tree)", () => {
    chownSync(dir, NOBODY, NOBODY);
    expect(paths(checkInstallTree(process.execPath, pkg))).toEqual([dir]);
  });

  it("a link is judged by its target: outside the package, the target, what is under it and the directories above it", () => {
    const outside = join(dir, "elsewhere");
    mkdirSync(join(outside, "lib"), { recursive: true, mode: 0o755 });
    chmodSync(outside, 0o755);
    writeFileSync(join(outside, "lib", "index.js"), "");
    chownSync(join(outside, "lib", "index.js"), NOBODY, NOBODY);
    symlinkSync(outside, join(pkg, "node_modules"));
    expect(paths(checkInstallTree(process.execPath, pkg))).toEqual([join(outside, "lib", "index.js")]);
  });

  it("the limit keeps the first findings and counts them all", () => {
    for (let i = 0; i < 15; i++) {
      writeFileSync(join(pkg, "dist", `f${i}.js`), "");
      chownSync(join(pkg, "dist", `f${i}.js`), NOBODY, NOBODY);
    }
    const r = checkInstallTree(process.execPath, pkg, 4);
    expect(r.findings).toHaveLength(4);
    expect(r.total).toBe(15);
  });
});

describe("untrustedWriter (sshd StrictModes rule)", () => {
  const e = (uid: number, gid: number, mode: number, isDir = false) => ({ path: "/x", uid, gid, mode, dir: isDir });
  it("root-owned, not writable by group or others: trusted", () => { expect(untrustedWriter(e(0, 0, 0o755, true))).toBeNull(); });
  it("group 0 may write (it holds root alone); another group may not", () => {
    expect(untrustedWriter(e(0, 0, 0o775, true))).toBeNull();
    expect(untrustedWriter(e(0, 27, 0o664))).toBe("writable by group 27");
  });
  it("a sticky world-writable directory (like /tmp) is trusted; a sticky file is not", () => {
    expect(untrustedWriter(e(0, 0, 0o1777, true))).toBeNull();
    expect(untrustedWriter(e(0, 0, 0o1666))).toBe("writable by everyone");
  });
  it("any other owner is untrusted whatever the mode", () => { expect(untrustedWriter(e(1000, 0, 0o400))).toBe("owned by uid 1000"); });
});
