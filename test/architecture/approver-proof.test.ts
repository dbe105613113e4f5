/**
 * Issue 23: the test-only approver proof cannot be built by production code. Its brand
 * (src/core/approval-test-brand.ts) may be imported only by core/approval-proof.ts (the judge) among the
 * non-test files of src/, and no production file names the symbol's text or builds a Caller's test_proof; the
 * built bundle has no second place that does either. The judge refuses a look-alike `{ kind: "test" }`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { judgeApproval } from "../../src/core/approval-proof.ts";
import { importsOf, sourceFiles } from "./layers.ts";
import { testProof } from "../support/approver.ts";

const SRC = join(import.meta.dirname, "..", "..", "src");
const facts = { separation: "none" as const, planner_uid: 1000, approver_uid: null, why: "in-process" };

describe("the test approver proof is out of production code's reach (issue 23)", () => {
  it("T23-test-proof-imports: only core/approval-proof.ts imports the brand; no other src/ file names it or sets test_proof", () => {
    const importers: string[] = [];
    const naming: string[] = [];
    for (const rel of sourceFiles(SRC)) {
      const text = readFileSync(join(SRC, rel), "utf8");
      const brand = importsOf(rel, text).some((i) => resolve(dirname(join(SRC, rel)), i.specifier) === join(SRC, "core", "approval-test-brand.ts"));
      if (brand) importers.push(rel);
      if (rel !== "core/approval-test-brand.ts" && rel !== "core/approval-proof.ts" && /TEST_APPROVER_BRAND|hostgate\.test-approver|test_proof\s*:/.test(text)) naming.push(rel);
    }
    expect(importers).toEqual(["core/approval-proof.ts"]);
    expect(naming).toEqual([]);
  });

  it("T23-test-proof-bundle: the built bundle creates the brand symbol once and sets test_proof nowhere", () => {
    const dist = join(import.meta.dirname, "..", "..", "dist");
    if (!existsSync(dist)) return; // the build test covers dist/; from sources the import check above is the proof
    const js = readdirSync(dist, { recursive: true }).map(String).filter((f) => f.endsWith(".js")).map((f) => readFileSync(join(dist, f), "utf8")).join("\n");
    expect(js.match(/Symbol\("hostgate\.test-approver"\)/g)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(js).not.toMatch(/test_proof\s*:/);
  });

  it("T23-test-proof-forged: a look-alike test proof without the brand is refused; the real one passes", () => {
    expect(() => judgeApproval({ kind: "test", brand: Symbol("hostgate.test-approver") } as never, facts, { same_user: "deny", passkey_required: null })).toThrow(/test proof that is not one/);
    expect(judgeApproval(testProof(), facts, { same_user: "deny", passkey_required: null })).toBe("test");
  });
});
