import { describe, expect, it } from "vitest";
import { confirmationWord, notApprovable, riskLines, visible } from "./approve.ts";

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
  it("asks for the transaction prefix above medium risk", () => {
    expect(confirmationWord({ risk_level: "medium", transaction_id: "0123456789" })).toBe("yes");
    expect(confirmationWord({ risk_level: "high", transaction_id: "0123456789" })).toBe("01234567");
  });
});

describe("the two risk levels and the states that cannot be approved (issue 22)", () => {
  const preview = (intended?: unknown) => ({ summary: "s", text: "t", ...(intended === undefined ? {} : { intended }) });
  it("T22-risk-labels: labels the action's level, and the command's when the step runs a command line", () => {
    expect(riskLines({ risk_level: "high", action_name: "WriteFile", preview: preview() })).toEqual(["Action risk  HIGH (the catalogue's level for WriteFile; it sets what you must type)"]);
    expect(riskLines({ risk_level: "high", action_name: "RunCommand", preview: preview({ command: "touch /tmp/x", risk_level: "medium" }) })).toEqual([
      "Action risk  HIGH (the catalogue's level for RunCommand; it sets what you must type)",
      "Command risk MEDIUM (the risk engine's rating of this command line)",
    ]);
  });
  it("says what to do for every state but planned", () => {
    expect(notApprovable("planned", "0123456789")).toBeNull();
    for (const [state, hint] of [["approved", /hostgate reject 01234567/], ["expired", /plan the change again/], ["rejected", /plan the change again/], ["executing", /history/], ["succeeded", /has already run \(state succeeded\)/]] as const) {
      expect(notApprovable(state, "0123456789"), state).toMatch(hint);
    }
  });
});
