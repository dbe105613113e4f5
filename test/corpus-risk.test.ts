import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { RiskLevel } from "../src/core/risk/index.ts";
import { testEngine } from "./support/risk-engine.ts";

/**
 * Every `risk` case of the shared corpus is a test (name carries the case id). Expectations follow
 * corpus/README.md: `deny/critical` must be denied at critical; `deny/high` must be denied or need approval,
 * at high or above; `require_approval/<level>` must need approval (or be denied, counted as stricter) at that level or above; `allow/<level>` must be allowed at that level. One step stricter than expected is a false
 * positive (counted, printed); laxer than expected on a deny case is a safety failure (the test fails).
 *
 * The cases are read from test/fixtures/corpus-risk.jsonl, a copy of the `risk` lines of
 * /work/shared/corpus/cases.jsonl (resolved as HOSTGATE_CORPUS ?? <repo>/../shared/corpus/cases.jsonl),
 * so a fresh clone has them. When the shared corpus is present, the copy must still match it.
 */
interface Case { id: string; area: string; input: string; expected: string; why: string }

const fixture = new URL("./fixtures/corpus-risk.jsonl", import.meta.url);
/** Where the shared corpus may be: $HOSTGATE_CORPUS, beside the repository, or the workplace's fixed path. */
const sharedCandidates = [process.env.HOSTGATE_CORPUS, new URL("../../shared/corpus/cases.jsonl", import.meta.url).pathname, "/work/shared/corpus/cases.jsonl"];
const sharedPath = sharedCandidates.find((p): p is string => p !== undefined && existsSync(p)) ?? sharedCandidates[1]!;
const parse = (text: string): Case[] => text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Case);
const cases = parse(readFileSync(fixture, "utf8"));

/** Cases whose expectation we believe is wrong, with the reason. The case still runs and is reported. */
const KNOWN_DISAGREEMENTS: Readonly<Record<string, string>> = {};

const LEVELS: readonly RiskLevel[] = ["low", "medium", "high", "critical"];

describe("risk corpus", async () => {
  const engine = await testEngine();
  const falsePositives: string[] = [];

  // Loud skip: the shared corpus is a file beside the checkout, not a test peer; a clone elsewhere has only the
  // fixture copy (every case below still runs from it). HOSTGATE_REQUIRE_CORPUS=1 turns the skip into a failure.
  const sharedPresent = existsSync(sharedPath);
  const required = process.env.HOSTGATE_REQUIRE_CORPUS === "1";
  if (!sharedPresent) process.stderr.write(`[risk corpus] SKIPPED drift check: shared corpus not found (${sharedCandidates.filter(Boolean).join(", ")}; set HOSTGATE_CORPUS); every case still runs from the fixture copy\n`);
  it.skipIf(!sharedPresent && !required)("fixture matches the shared corpus", () => {
    expect(sharedPresent, `shared corpus missing at ${sharedPath}`).toBe(true);
    const shared = parse(readFileSync(sharedPath, "utf8")).filter((c) => c.area === "risk");
    expect(cases.map((c) => c.id)).toEqual(shared.map((c) => c.id));
    expect(cases).toEqual(shared);
  });

  for (const c of cases) {
    it(`${c.id}: ${c.input.slice(0, 60).replace(/\n/g, "\\n")} → ${c.expected}`, () => {
      const [decision, level] = c.expected.split("/") as ["allow" | "deny" | "require_approval", RiskLevel];
      const got = engine.assess(c.input);
      const want = LEVELS.indexOf(level);
      const have = LEVELS.indexOf(got.risk_level);
      const detail = `${c.id} got ${got.decision}/${got.risk_level} [${got.signals.map((s) => s.id).join(", ")}]`;
      if (have > want) falsePositives.push(detail);
      if (decision === "require_approval") {
        // Must reach a human at that level or above; denying it outright is stricter (a false positive, counted).
        if (got.decision === "deny") falsePositives.push(detail);
        expect(got.decision, detail).not.toBe("allow");
        expect(have, detail).toBeGreaterThanOrEqual(want);
      } else if (decision === "deny") {
        expect(got.decision, detail).not.toBe("allow");
        expect(have, detail).toBeGreaterThanOrEqual(want);
        if (level === "critical") expect(got.decision, detail).toBe("deny");
      } else if (KNOWN_DISAGREEMENTS[c.id] === undefined) {
        expect(got.decision, detail).toBe("allow");
        expect(got.risk_level, detail).toBe(level);
      } else {
        process.stderr.write(`[risk corpus] ${c.id}: expectation not asserted (${KNOWN_DISAGREEMENTS[c.id]!}); ${detail}\n`);
        expect(got.decision, detail).not.toBe("deny");
      }
    });
  }

  it("reports the false-positive rate", () => {
    const allowCases = cases.filter((c) => c.expected.startsWith("allow")).length;
    process.stderr.write(`[risk corpus] ${cases.length} cases, ${falsePositives.length} stricter than expected (${((100 * falsePositives.length) / cases.length).toFixed(1)}% of all, allow cases: ${allowCases})\n${falsePositives.map((f) => "  " + f).join("\n")}\n`);
    expect(cases.length).toBeGreaterThan(100);
  });
});
