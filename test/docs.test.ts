import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";

it("docs/tools.md, docs/configuration.md and docs/risk-rules.md are generated from the current code", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/gen-docs.ts", "--check"], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
});
