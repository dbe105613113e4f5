import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeIntoTemplate, escapeUnitPath, escapeUnitString, unescapeUnitPath, unescapeUnitString } from "./escape.ts";
import { isValidUnitName } from "./unit-name.ts";

describe("systemd-escape", () => {
  it("escapes like systemd-escape", () => {
    expect(escapeUnitString("foo-bar/baz")).toBe("foo\\x2dbar-baz");
    expect(escapeUnitString(".hidden")).toBe("\\x2ehidden");
    expect(escapeUnitString("a.b")).toBe("a.b");
    expect(escapeUnitString("a:b_c")).toBe("a:b_c");
    expect(escapeUnitString("a b\\c@")).toBe("a\\x20b\\x5cc\\x40");
    expect(escapeUnitString("ü")).toBe("\\xc3\\xbc");
  });

  it("escapes paths", () => {
    expect(escapeUnitPath("/")).toBe("-");
    expect(escapeUnitPath("//srv//foo-bar/./")).toBe("srv-foo\\x2dbar");
    expect(() => escapeUnitPath("/srv/../etc")).toThrow(/normalized/);
  });

  it("escapes into templates", () => {
    expect(escapeIntoTemplate("nginx@.service", "/srv/foo-bar", { path: true })).toBe("nginx@srv-foo\\x2dbar.service");
    expect(() => escapeIntoTemplate("nginx.service", "x")).toThrow(/not a template/);
  });

  it("unescapes", () => {
    expect(unescapeUnitString("-org-example")).toBe("/org/example");
    expect(unescapeUnitString("foo\\x2dbar")).toBe("foo-bar");
    expect(unescapeUnitPath("-")).toBe("/");
    expect(unescapeUnitPath("srv-foo\\x2dbar")).toBe("/srv/foo-bar");
    expect(() => unescapeUnitString("a\\x4")).toThrow(/broken escape/);
    expect(() => unescapeUnitString("\\xff")).toThrow(/UTF-8/);
  });

  it("round-trips any string without '/' and yields valid unit prefixes", () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes("/") && !s.includes("\u0000")), (s) => {
      const e = escapeUnitString(s);
      expect(unescapeUnitString(e)).toBe(s);
      if (e.length < 240) expect(isValidUnitName(`${e}.service`)).toBe(true);
    }));
  });

  it("round-trips normalized paths", () => {
    const seg = fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !s.includes("/") && s !== "." && s !== "..");
    fc.assert(fc.property(fc.array(seg, { minLength: 1, maxLength: 5 }), (segs) => {
      const p = `/${segs.join("/")}`;
      expect(unescapeUnitPath(escapeUnitPath(p))).toBe(p);
    }));
  });
});
