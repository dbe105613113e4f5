import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeBusLabel, login1UserPath, unescapeBusLabel, unitNameFromObjectPath, unitObjectPath } from "./bus-path.ts";

describe("D-Bus object path labels", () => {
  it("escapes", () => {
    expect(escapeBusLabel("")).toBe("_");
    expect(escapeBusLabel("a1")).toBe("a1");
    expect(escapeBusLabel("1a")).toBe("_31a");
    expect(unitObjectPath("-.mount")).toBe("/org/freedesktop/systemd1/unit/_2d_2emount");
  });

  it("rejects malformed labels", () => {
    expect(unescapeBusLabel("_4")).toBeNull();
    expect(unescapeBusLabel("a-b")).toBeNull();
    expect(unescapeBusLabel("_zz")).toBeNull();
    expect(unitNameFromObjectPath("/org/freedesktop/systemd1/unit/a/b")).toBeNull();
    expect(unitNameFromObjectPath("/org/other/x")).toBeNull();
  });

  it("round-trips any string and produces valid object-path labels", () => {
    fc.assert(fc.property(fc.string({ maxLength: 60 }), (s) => {
      const label = escapeBusLabel(s);
      expect(label).toMatch(/^[A-Za-z0-9_]+$/);
      expect(unescapeBusLabel(label)).toBe(s);
      expect(unitNameFromObjectPath(unitObjectPath(s))).toBe(s);
    }));
  });

  it("login1 uses its own scheme", () => {
    expect(login1UserPath(0)).toBe("/org/freedesktop/login1/user/_0");
    expect(() => login1UserPath(-1)).toThrow();
  });
});
