import { describe, expect, it } from "vitest";
import { PLANNER_RULES, planIntent } from "./rules.ts";

describe("deterministic planner rules", () => {
  for (const rule of PLANNER_RULES) {
    it(`${rule.id}: every example proposes ${rule.action}`, () => {
      for (const example of rule.examples) expect(planIntent(example).map((s) => s.action), example).toContain(rule.action);
    });
  }
  it("turns a bare unit name into a .service and keeps explicit suffixes", () => {
    expect(planIntent("restart nginx")[0]).toMatchObject({ action: "RestartService", params: { unit: "nginx.service" } });
    expect(planIntent("restart backup.timer")[0]?.params).toEqual({ unit: "backup.timer" });
  });
  it("proposes nothing for an intent it does not understand", () => {
    expect(planIntent("make it faster")).toEqual([]);
  });
  it("never proposes the same action twice", () => {
    const actions = planIntent("disk usage and disk space").map((s) => s.action);
    expect(new Set(actions).size).toBe(actions.length);
  });
});
