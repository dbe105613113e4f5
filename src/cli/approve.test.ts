import { describe, expect, it } from "vitest";
import { confirmationWord, visible } from "./approve.ts";

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
