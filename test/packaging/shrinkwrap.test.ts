// npm-shrinkwrap.json in the npm package (issue 25 re-trial 6; scripts/shrinkwrap-files.ts): made from
// package-lock.json at pack time, production packages only. The packed file's versions against an install:
// test/setup/package.test.ts.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { productionShrinkwrap, type Lockfile } from "../../scripts/shrinkwrap-files.ts";
import { npmPack } from "../helpers/npm-pack.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as Lockfile;

describe("productionShrinkwrap", () => {
  it("keeps exactly the packages npm installs without dev dependencies, each as the lockfile pins it", () => {
    const wrap = productionShrinkwrap(lock);
    // npm's own view of the production tree of this checkout.
    const ls = spawnSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20 });
    const prodPaths = ls.stdout.trim().split("\n").slice(1).map((p) => p.slice(ROOT.length + 1));
    expect(prodPaths.length).toBeGreaterThan(20);
    for (const p of prodPaths) expect(wrap.packages[p], p).toBeDefined();
    for (const [path, entry] of Object.entries(wrap.packages)) {
      expect(entry.dev, path).toBeUndefined();
      if (path === "") continue;
      const pinned = lock.packages[path]!;
      expect([entry.version, entry.resolved, entry.integrity], path).toEqual([pinned.version, pinned.resolved, pinned.integrity]);
    }
    const devOnly = Object.keys(lock.packages).filter((k) => lock.packages[k]!.dev);
    expect(devOnly.length).toBeGreaterThan(0);
    for (const k of devOnly) expect(wrap.packages[k], k).toBeUndefined();
    expect(wrap.packages[""]!.devDependencies).toBeUndefined();
    expect(wrap.packages[""]!.dependencies).toEqual(lock.packages[""]!.dependencies);
    expect([wrap.name, wrap.version, wrap.lockfileVersion]).toEqual([lock.name, lock.version, lock.lockfileVersion]);
  });

  it("a lockfile without a packages map (lockfileVersion 1) is refused, saying how to rewrite it", () => {
    expect(() => productionShrinkwrap({ name: "x", version: "1.0.0", lockfileVersion: 1, packages: undefined as unknown as Lockfile["packages"] })).toThrow(/npm 7 or later/);
    // typeof null is "object": a null map is refused the same way, not a TypeError from Object.entries.
    expect(() => productionShrinkwrap({ name: "x", version: "1.0.0", lockfileVersion: 3, packages: null as unknown as Lockfile["packages"] })).toThrow(/npm 7 or later/);
  });
});

describe("npm pack", () => {
  it("lists npm-shrinkwrap.json (made by prepack) and leaves none in the checkout (removed by postpack)", () => {
    expect(existsSync(join(ROOT, "npm-shrinkwrap.json"))).toBe(false);
    // package.json's hooks, without the prepack rebuild when dist/ is fresh (npm runs it even for --dry-run, and it
    // would empty dist/ under the CLI tests running beside this file).
    const r = npmPack(ROOT, ["--dry-run", "--json"], 300_000);
    expect(r.status, r.stderr).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toContain("npm-shrinkwrap.json");
    expect(files).not.toContain("package-lock.json");
    expect(existsSync(join(ROOT, "npm-shrinkwrap.json"))).toBe(false);
  }, 300_000);
});
