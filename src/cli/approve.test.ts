import { describe, expect, it } from "vitest";
import type { ShowResult } from "../ipc/protocol.ts";
import { confirmationWord, notApprovable, planNotApprovable, renderPlan, riskLines, visible } from "./approve.ts";

describe("what the approver sees", () => {
  it("shows carriage returns, escapes and bidi overrides instead of obeying them", () => {
    expect(visible("curl x|sh\r+echo hello")).toBe("curl x|sh\\r+echo hello");
    expect(visible("a\x1b[1A\x1b[2Kb")).toBe("a\\x1b[1A\\x1b[2Kb");
    expect(visible("/tmp/\u202Etxt.exe")).toBe("/tmp/<U+202E>txt.exe");
    expect(visible("line one\n\tline two")).toBe("line one\n\tline two");
    expect(visible("PermitRootLogin\u2060 no")).toBe("PermitRootLogin<U+2060> no");
    for (const c of ["\u00ad", "\u034f", "\u061c", "\u180e", "\u2028", "\u2029", "\u3164", "\ufe0f", "\u{e0041}"]) {
      expect(visible(`a${c}b`), JSON.stringify(c)).toMatch(/^a(<U\+[0-9A-F]{4,5}>|\\x[0-9a-f]{2})b$/);
    }
    expect(visible("café 日本 ✓")).toBe("café 日本 ✓");
  });
  it("asks for the plan id's prefix above medium risk", () => {
    expect(confirmationWord({ risk_level: "medium", plan_id: "0123456789" })).toBe("yes");
    expect(confirmationWord({ risk_level: "high", plan_id: "0123456789" })).toBe("01234567");
    expect(confirmationWord({ risk_level: "critical", plan_id: "abcdef0123" })).toBe("abcdef01");
  });
});

describe("the two risk levels and the states that cannot be approved (issue 22)", () => {
  const preview = (intended?: unknown) => ({ summary: "s", text: "t", ...(intended === undefined ? {} : { intended }) });
  it("T22-risk-labels: labels the action's level, and the command's when the step runs a command line", () => {
    expect(riskLines({ risk_level: "high", action_name: "WriteFile", preview: preview() })).toEqual(["Action risk  HIGH (the catalogue's level for WriteFile)"]);
    expect(riskLines({ risk_level: "high", action_name: "RunCommand", preview: preview({ command: "touch /tmp/x", risk_level: "medium" }) })).toEqual([
      "Action risk  HIGH (the catalogue's level for RunCommand)",
      "Command risk MEDIUM (the risk engine's rating of this command line)",
    ]);
  });
  it("says what to do for every state but planned", () => {
    expect(notApprovable("planned", "0123456789")).toBeNull();
    for (const [state, hint] of [["approved", /let it expire .* plan the change again/], ["expired", /plan the change again/], ["rejected", /plan the change again/], ["executing", /history/], ["succeeded", /has already run \(state succeeded\)/]] as const) {
      expect(notApprovable(state, "0123456789"), state).toMatch(hint);
    }
  });
});

describe("one screen for a whole plan (issue 22)", () => {
  const step = (seq: number, action: string, risk: "low" | "medium" | "high", state = "planned") => ({
    transaction_id: `0000000${seq}-aaaa-4aaa-8aaa-aaaaaaaaaaaa`, seq, action_name: action, host: "local", params: { n: seq }, risk_level: risk, state,
    preview: { summary: `${action} ${seq}`, text: `preview text of step ${seq}` }, preview_hash: `hash${seq}`.padEnd(64, "0"), expires_at: "2026-12-01T00:00:00.000Z", approval: null, outcome: null,
  });
  const plan = (steps: ReturnType<typeof step>[]): ShowResult => ({
    plan_id: "feedbeef-1111-4111-8111-111111111111", risk_level: "high", steps, created_at: "2026-12-01T00:00:00.000Z", actor: "{}",
    planned_by: { client: "cli", uid: 1000, planner: "explicit", intent: null }, approval: { separation: "none", facts: "same uid", refused: false, passkey_required: null },
  });

  it("T22-plan-screen: shows every step with its host, action, params, risk, preview hash and preview, in order", () => {
    const text = renderPlan(plan([step(1, "WriteFile", "high"), step(2, "RestartService", "medium"), step(3, "ReloadService", "low")]));
    expect(text).toContain("Plan         feedbeef-1111-4111-8111-111111111111 (3 steps, run in this order");
    expect(text).toContain("Risk         HIGH (the highest of its steps; it sets what you must type)");
    const at = [1, 2, 3].map((n) => text.indexOf(`── Step ${n} of 3 ──`));
    expect(at.every((i) => i > 0) && at[0]! < at[1]! && at[1]! < at[2]!).toBe(true);
    for (const n of [1, 2, 3]) {
      expect(text).toContain(`Transaction  0000000${n}-aaaa-4aaa-8aaa-aaaaaaaaaaaa`);
      expect(text).toContain(`preview text of step ${n}`);
      expect(text).toContain(`Preview hash hash${n}`);
      expect(text).toContain(`{"n":${n}}`);
    }
    expect(text).toContain("Action risk  MEDIUM (the catalogue's level for RestartService)");
  });

  it("T22-plan-closed-step: one step that is not planned makes the whole plan unapprovable, naming that step", () => {
    expect(planNotApprovable(plan([step(1, "WriteFile", "high"), step(2, "RestartService", "medium")]))).toBeNull();
    const why = planNotApprovable(plan([step(1, "WriteFile", "high"), step(2, "RestartService", "medium", "rejected")]));
    expect(why).toMatch(/^step 2 of 2 \(RestartService\): 00000002-aaaa-4aaa-8aaa-aaaaaaaaaaaa was rejected\..* none of them can be\.$/);
    expect(planNotApprovable(plan([step(1, "WriteFile", "high", "expired")]))).toMatch(/^00000001-.* expired before anyone approved it/);
  });
});
