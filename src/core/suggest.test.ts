import { describe, expect, it } from "vitest";
import { closest, editDistance } from "./suggest.ts";

describe("closest (did you mean)", () => {
  it("finds a key one or two edits away, transpositions counting once", () => {
    expect(closest("aproval", ["approval", "audit", "tools"])).toBe("approval");
    expect(closest("same_usr", ["same_user", "ttl_seconds"])).toBe("same_user");
    expect(closest("tolos", ["tools", "hosts"])).toBe("tools");
    expect(editDistance("tolos", "tools")).toBe(1);
  });
  it("suggests nothing for a word far from every candidate, for a tie, or with no candidates", () => {
    expect(closest("zzzzzz", ["approval", "audit"])).toBeUndefined();
    expect(closest("ab", ["ac", "ad"])).toBeUndefined();
    expect(closest("approval", [])).toBeUndefined();
  });
  it("ignores case", () => {
    expect(closest("Approval", ["approval"])).toBe("approval");
  });
});
