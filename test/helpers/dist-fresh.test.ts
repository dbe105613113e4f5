// distStale (test/helpers/dist-fresh.ts): when a test may use dist/ as it is instead of rebuilding it. Real files
// in a temp checkout, mtimes set with utimes.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { distStale } from "./dist-fresh.ts";

let root = "";
afterEach(() => { rmSync(root, { recursive: true, force: true }); });

/** A checkout whose inputs are dated `inputsAt` and whose dist/ (bundle + table) is dated `builtAt` (seconds). */
function checkout(inputsAt: number, builtAt: number, dist: string[] = ["hostgate.js", "prebuilt.json"]): string {
  root = mkdtempSync(join(tmpdir(), "hg-dist-fresh-"));
  for (const d of ["src/core", "native", "scripts", "dist"]) mkdirSync(join(root, d), { recursive: true });
  for (const f of ["src/core/a.ts", "native/confine-helper.c", "scripts/build.mjs", "package.json", "package-lock.json"]) {
    writeFileSync(join(root, f), "x");
    utimesSync(join(root, f), inputsAt, inputsAt);
  }
  for (const f of dist) {
    writeFileSync(join(root, "dist", f), "x");
    utimesSync(join(root, "dist", f), builtAt, builtAt);
  }
  return root;
}

describe("distStale", () => {
  it("a build newer than every input is fresh", () => {
    expect(distStale(checkout(1_000, 2_000))).toBeNull();
  });

  it("a source file, the helper's C file or the lockfile changed after the build: stale, naming what changed", () => {
    const r = checkout(1_000, 2_000);
    utimesSync(join(r, "src/core/a.ts"), 3_000, 3_000);
    utimesSync(join(r, "native/confine-helper.c"), 3_000, 3_000);
    expect(distStale(r)).toBe("changed since the build: src, native");
    utimesSync(join(r, "package-lock.json"), 3_000, 3_000);
    expect(distStale(r)).toMatch(/package-lock\.json$/);
  });

  it("a new file deep under src/ counts", () => {
    const r = checkout(1_000, 2_000);
    mkdirSync(join(r, "src/core/deep/er"), { recursive: true });
    writeFileSync(join(r, "src/core/deep/er/new.ts"), "x");
    expect(distStale(r)).toBe("changed since the build: src");
  });

  it("no bundle, or a bundle without its table (a build that stopped half-way), is not fresh", () => {
    expect(distStale(checkout(1_000, 2_000, []))).toBe("no dist/hostgate.js");
    rmSync(root, { recursive: true, force: true });
    expect(distStale(checkout(1_000, 2_000, ["hostgate.js"]))).toMatch(/^no dist\/prebuilt\.json/);
  });
});
