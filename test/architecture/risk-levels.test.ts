import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { riskBadge } from "../../src/daemon/console/layout.ts";
import { CommandAssessmentSchema } from "../../src/ipc/plan-command.ts";
import { RiskLevelSchema } from "../../src/ipc/protocol.ts";
import { RISK_LEVELS } from "../../src/core/risk-level.ts";

const SRC = join(import.meta.dirname, "..", "..", "src");

/** Non-test .ts files under src/, relative to it. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith(".ts") && !p.endsWith(".test.ts") ? [relative(SRC, p)] : [];
  });
}

describe("risk levels are defined once (core/risk-level.ts) and used everywhere", () => {
  it("no other file of src/ spells the four levels out as a list or a rank table", () => {
    const list = /["']low["']\s*,\s*["']medium["']\s*,\s*["']high["']\s*,\s*["']critical["']/;
    const rank = /\blow\s*:\s*0\s*,\s*medium\s*:\s*1/;
    const found = sources(SRC).filter((f) => f !== "core/risk-level.ts").filter((f) => { const t = readFileSync(join(SRC, f), "utf8"); return list.test(t) || rank.test(t); });
    expect(found).toEqual([]);
  });

  it("the wire, config and console accept exactly RISK_LEVELS", () => {
    // What each schema accepts (not its options, which are RISK_LEVELS by construction).
    const wire = [RiskLevelSchema, CommandAssessmentSchema.shape.risk_level];
    for (const l of RISK_LEVELS) {
      for (const schema of wire) expect(schema.safeParse(l).success, l).toBe(true);
      expect(ConfigSchema.safeParse({ approval: { passkey_required_from: l } }).success, l).toBe(true);
      expect(riskBadge(l).html, l).toContain(`risk-${l}`);
    }
    for (const schema of wire) expect(schema.safeParse("severe").success).toBe(false);
    expect(ConfigSchema.safeParse({ approval: { passkey_required_from: "severe" } }).success).toBe(false);
    expect(riskBadge("severe").html).toContain("risk-high");
  });
});
