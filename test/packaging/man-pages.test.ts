/**
 * The manual pages (issue 25): man/ is what scripts/gen-man.ts makes from commander's tree (drift fails), and every
 * page renders under `groff -ww` without a warning. (Re-created: the first version lived under test/dist/, which
 * .gitignore's old `dist/` rule kept out of git.)
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pages = readdirSync(`${root}man`).filter((f) => f.endsWith(".1"));
const groff = ["/usr/bin/groff"].find(existsSync);

describe("man pages", () => {
  it("man/ matches what gen-man generates (scripts/gen-man.ts --check)", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/gen-man.ts", "--check"], { cwd: root, encoding: "utf8" });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(pages.length).toBeGreaterThan(30);
  }, 120_000);

  it.skipIf(!groff)("every page renders with groff -ww and no warning", () => {
    for (const page of pages) {
      const r = spawnSync(groff!, ["-ww", "-man", "-Tutf8", "-z", `${root}man/${page}`], { encoding: "utf8" });
      expect(r.status, page).toBe(0);
      expect(r.stderr, page).toBe("");
    }
  });

  it("T23-man-console-synopsis: a command that acts on its own shows its subcommand as optional", () => {
    expect(readFileSync(`${root}man/hostgate-console.1`, "utf8")).toContain(".B hostgate console [options] [command]\n");
    expect(readFileSync(`${root}man/hostgate-audit.1`, "utf8")).toMatch(/\.B hostgate audit (\[options\] )?<command>\n/);
  });

  it("package.json's man field lists exactly the pages", () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { man: string[] };
    expect([...pkg.man].map((p) => p.replace(/^\.?\/?man\//, "")).sort()).toEqual([...pages].sort());
  });
});
