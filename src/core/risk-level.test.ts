import { describe, expect, it } from "vitest";
import { highestRisk, RISK_LEVELS, riskRank } from "./risk-level.ts";
import { passkeyRequirement } from "./approval-proof.ts";
import { cedarRequest } from "./policy/cedar-model.ts";
import type { PolicyRequest } from "./policy/gate.ts";

describe("risk levels: one order, low < medium < high < critical", () => {
  it("ranks each level by its place, and takes the highest of a plan's steps (low for none)", () => {
    expect(RISK_LEVELS.map(riskRank)).toEqual([0, 1, 2, 3]);
    expect(highestRisk(["low", "high", "medium"])).toBe("high");
    expect(highestRisk(["critical", "low"])).toBe("critical");
    expect(highestRisk([])).toBe("low");
  });

  it("the passkey threshold and Cedar's risk_rank follow the same order", () => {
    const request = (risk_level: PolicyRequest["context"]["risk_level"]): PolicyRequest => ({
      action: "exec",
      principal: { role: "operator", client: "t", uid: 1000 },
      resource: { host: "local", address: "", provider: "local", backend: "local", tags: [] },
      context: { command: "true", argv: ["true"], programs: ["true"], shell: "bash", risk_level, signals: [] },
    });
    // Written out, not computed with riskRank (which is what passkeyRequirement uses): row = passkey_required_from.
    const expected: Record<string, boolean[]> = {
      low: [true, true, true, true],
      medium: [false, true, true, true],
      high: [false, false, true, true],
      critical: [false, false, false, true],
    };
    for (const from of RISK_LEVELS) {
      const needs = RISK_LEVELS.map((level) => passkeyRequirement([{ id: "s", risk_level: level }], from) !== null);
      expect(needs, `passkey_required_from ${from}`).toEqual(expected[from]);
    }
    expect(RISK_LEVELS.map((l) => cedarRequest(request(l)).context.risk_rank)).toEqual([0, 1, 2, 3]);
  });
});
