import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

it("docs/tools.md, docs/configuration.md and docs/risk-rules.md are generated from the current code", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/gen-docs.ts", "--check"], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
});

it("every table row of the generated docs has as many cells as its header (a `|` in free text is escaped)", () => {
  const cells = (row: string): number => row.replace(/\\\|/g, "").split("|").length - 2;
  for (const file of ["docs/tools.md", "docs/configuration.md", "docs/risk-rules.md"]) {
    let header = -1;
    for (const [i, line] of readFileSync(file, "utf8").split("\n").entries()) {
      if (!line.startsWith("|")) { header = -1; continue; }
      if (header < 0) { header = cells(line); continue; }
      expect(cells(line), `${file}:${i + 1}: ${line.slice(0, 120)}`).toBe(header);
    }
  }
});
