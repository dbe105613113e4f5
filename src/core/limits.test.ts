import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findControlCharacter, LIMITS, utf8Length } from "./limits.ts";

describe("utf8Length", () => {
  it.each([
    ["", 0],
    ["hello", 5],
    ["é", 2], // U+00E9
    ["ߟ", 2], // U+07DF, last 2-byte
    ["ࠀ", 3], // U+0800, first 3-byte
    ["中文", 6],
    ["😀", 4], // surrogate pair
    ["a😀b中é", 1 + 4 + 1 + 3 + 2],
  ])("%j is %i bytes, like Buffer.byteLength", (s, n) => {
    expect(utf8Length(s)).toBe(n);
    expect(utf8Length(s)).toBe(Buffer.byteLength(s, "utf8"));
  });

  it("counts a lone surrogate as U+FFFD (3 bytes), without swallowing the next character", () => {
    for (const s of ["\uD800", "a\uD800", "\uD800中", "\uDC00x", "\uD800\uD800\uDC00"]) {
      expect(utf8Length(s)).toBe(Buffer.byteLength(s, "utf8"));
    }
  });

  it("agrees with Buffer.byteLength on arbitrary strings", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => utf8Length(s) === Buffer.byteLength(s, "utf8")), { numRuns: 500 });
    fc.assert(fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }), (s) => utf8Length(s) === Buffer.byteLength(s, "utf8")), { numRuns: 500 });
  });
});

describe("LIMITS", () => {
  it("holds the documented caps", () => {
    expect(LIMITS).toEqual({ argumentBytes: 65536, queryBytes: 1024, pathBytes: 1024, answerBytes: 1048576 });
  });
});

describe("findControlCharacter", () => {
  it("allows tab, newline and carriage return", () => {
    expect(findControlCharacter("a\tb\nc\r\n")).toBeNull();
    expect(findControlCharacter({ text: "line1\nline2\ttab", n: 1, b: true, z: null })).toBeNull();
  });

  it.each(["\0", "\u0001", "\u0008", "\u000b", "\u000c", "\u000e", "\u001b", "\u001f", "\u007f"])("rejects %j", (c) => {
    expect(findControlCharacter(`x${c}y`)).toBe("arguments");
  });

  it("returns the path of the offending value inside objects and arrays", () => {
    expect(findControlCharacter({ path: "/etc/passwd\0.log" })).toBe("arguments.path");
    expect(findControlCharacter({ a: { b: ["ok", "bad\u0007"] } })).toBe("arguments.a.b[1]");
    expect(findControlCharacter(["ok", { k: "v\u007f" }], "args")).toBe("args[1].k");
  });

  it("checks object keys too", () => {
    expect(findControlCharacter({ "ke\0y": "v" })).toBe("arguments key");
  });

  it("ignores non-string scalars", () => {
    expect(findControlCharacter(42)).toBeNull();
    expect(findControlCharacter(undefined)).toBeNull();
    expect(findControlCharacter(null)).toBeNull();
  });
});
