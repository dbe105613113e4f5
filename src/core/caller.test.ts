import { describe, expect, it } from "vitest";
import { actorOf, actorView, parseActor, roleAtLeast } from "./caller.ts";
import { MAX_ACTOR_LENGTH } from "./audit/entry.ts";
import { decisionForRisk } from "./policy/decision.ts";
import { riskOnlyPolicy } from "./policy/risk-only.ts";
import { judge, type PolicyRequest } from "./policy/gate.ts";
import type { RiskAssessment } from "./risk/index.ts";
import type { PolicyEngine } from "../ports/policy-engine.ts";
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

describe("actorView (history[].actor, issue 22)", () => {
  it("reads an actorOf string back as typed fields, drops fields of the wrong type, and keeps anything else as { raw }", () => {
    const actor = actorOf({ role: "operator", socket: "agent", peer: { uid: 1000, gid: 1001, pid: 4242 }, client_name: "claude-code", label: "agent" });
    expect(actorView(actor)).toEqual({ client: "claude-code", uid: 1000, gid: 1001, pid: 4242, role: "operator", socket: "agent", label: "agent" });
    expect(actorView('{"uid":"0","role":"root","socket":"agent","pid":1.5}')).toEqual({ socket: "agent" });
    for (const raw of ["daemon", "", "null", "[1]", "{bad", '{"uid":"0"}', "{}"]) expect(actorView(raw)).toEqual({ raw });
  });
});

describe("the default PolicyEngine (risk only)", () => {
  it("keeps the risk engine's decision table and names itself as the source", () => {
    for (const [level, decision] of [["low", "allow"], ["medium", "allow"], ["high", "require_approval"], ["critical", "deny"]] as const) {
      expect(decisionForRisk(level)).toBe(decision);
      const d = riskOnlyPolicy.decide({ action: "exec", principal: { role: "operator", client: "t", uid: null }, resource: { host: "local", address: "", provider: "local", backend: "local", tags: [] }, context: { command: "x", argv: ["x"], programs: ["x"], shell: "bash", risk_level: level, signals: ["s"] } });
      expect(d).toEqual({ decision, reasons: ["command risk: s"], policies: [] });
    }
    expect([riskOnlyPolicy.name, riskOnlyPolicy.configured]).toEqual(["risk_engine_only", false]);
  });

  it("counts as no policy for exec: refused unless allow_unverified, never looser than the risk engine", () => {
    const req: PolicyRequest = { action: "exec", principal: { role: "operator", client: "t", uid: null }, resource: { host: "h", address: "", provider: "static", backend: "s", tags: [] }, context: { command: "x", argv: [], programs: [], shell: "sh", risk_level: "low", signals: [] } };
    const low = { risk_level: "low", decision: "allow", signals: [], commands: [] } as unknown as RiskAssessment;
    const critical = { ...low, risk_level: "critical", decision: "deny" } as RiskAssessment;
    expect(judge(low, riskOnlyPolicy, req, { allow_unverified: false, risk_disabled: false })).toMatchObject({ decision: "deny", policy: { source: "none" } });
    expect(judge(low, riskOnlyPolicy, req, { allow_unverified: true, risk_disabled: false }).decision).toBe("allow");
    const permissive: PolicyEngine = { name: "test-permit-all", configured: true, decide: () => ({ decision: "allow", reasons: ["all"], policies: ["p"] }) };
    expect(judge(critical, permissive, req, { allow_unverified: false, risk_disabled: true }).decision).toBe("deny");
    expect(judge(low, permissive, req, { allow_unverified: false, risk_disabled: false })).toMatchObject({ decision: "allow", policy: { source: "test-permit-all" } });
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
