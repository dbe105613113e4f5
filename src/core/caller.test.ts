import { describe, expect, it } from "vitest";
import { actorOf, parseActor, roleAtLeast } from "./caller.ts";
import { MAX_ACTOR_LENGTH } from "./audit/entry.ts";
import { decisionForRisk } from "./policy/decision.ts";
import { riskOnlyPolicy } from "./policy/risk-only.ts";
import { isToolset, TOOLSETS, type Toolset } from "./toolsets.ts";

describe("Caller", () => {
  it("orders roles observer < operator < admin", () => {
    expect(roleAtLeast("admin", "operator")).toBe(true);
    expect(roleAtLeast("operator", "operator")).toBe(true);
    expect(roleAtLeast("observer", "operator")).toBe(false);
  });

  it("renders the actor as sorted compact JSON that parses back, peer included, client name cut, under the audit limit", () => {
    const actor = actorOf({ role: "operator", socket: "agent", peer: { uid: 1000, gid: 1001, pid: 4242 }, client_name: `claude"\n${"x".repeat(500)}`, label: "agent" });
    expect(actor.startsWith('{"client":"claude??x')).toBe(true);
    const worst = actorOf({ role: "operator", socket: "agent", peer: { uid: 4294967295, gid: 4294967295, pid: 4194304 }, client_name: '"\\'.repeat(200), label: "\u0000".repeat(99) });
    expect(worst.length).toBeLessThanOrEqual(MAX_ACTOR_LENGTH);
    expect(actor.length).toBeLessThanOrEqual(MAX_ACTOR_LENGTH);
    expect(parseActor(actor)).toMatchObject({ role: "operator", socket: "agent", uid: 1000, gid: 1001, pid: 4242, label: "agent" });
    expect(actorOf({ role: "admin", socket: "in_process", peer: null, client_name: null, label: "admin" })).toBe('{"label":"admin","role":"admin","socket":"in_process"}');
    expect(parseActor("mcp")).toBeNull();
  });
});

describe("the default PolicyEngine (risk only)", () => {
  it("keeps the risk engine's decision table and names itself as the source", async () => {
    for (const [level, decision] of [["low", "allow"], ["medium", "allow"], ["high", "require_approval"], ["critical", "deny"]] as const) {
      expect(decisionForRisk(level)).toBe(decision);
      const d = await riskOnlyPolicy.decide({ kind: "command", subject: "x", host: "local", caller: null, risk: { risk_level: level, signals: [{ id: "s", severity: level, reason: "because" }] } });
      expect(d).toEqual({ decision, reasons: ["because"], source: "risk_engine_only" });
    }
  });
});

describe("toolsets", () => {
  it("are one typed list holding the groups the next issues use", () => {
    expect(TOOLSETS).toEqual(expect.arrayContaining(["hosts", "skills", "host", "approval", "risk", "audit"]));
    expect(isToolset("hosts")).toBe(true);
    expect(isToolset("hots")).toBe(false);
    // @ts-expect-error a misspelt toolset is a type error (checked by tsc --noEmit)
    const wrong: Toolset = "hots";
    expect(wrong).toBe("hots");
  });
});
