import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { CanonicalEncodingError, MAX_DEPTH, canonicalBytes, canonicalJson } from "./canonical.ts";
import type { JsonValue } from "./canonical.ts";

describe("canonicalJson golden values", () => {
  it("sorts keys, drops whitespace, keeps arrays in order", () => {
    expect(canonicalJson({ b: 1, a: [3, 2, { d: null, c: true }], "": false })).toBe('{"":false,"a":[3,2,{"c":true,"d":null}],"b":1}');
  });
  it("sorts keys by UTF-16 code units (uppercase before lowercase, astral after BMP private use)", () => {
    expect(canonicalJson({ b: 0, B: 0, a: 0, "\u{1F600}": 0, "\uE000": 0 })).toBe('{"B":0,"a":0,"b":0,"\u{1F600}":0,"\uE000":0}');
  });
  it("escapes strings like JSON.stringify, including lone surrogates", () => {
    expect(canonicalJson(['"\\\n\u0001é', "\uD800"])).toBe('["\\"\\\\\\n\\u0001é","\\ud800"]');
  });
  it("writes integers in plain decimal and -0 as 0", () => {
    expect(canonicalJson([0, -0, 1e15, -9007199254740991])).toBe("[0,0,1000000000000000,-9007199254740991]");
  });
  it("encodes text as UTF-8", () => {
    expect([...canonicalBytes({ k: "é€" })]).toEqual([0x7b, 0x22, 0x6b, 0x22, 0x3a, 0x22, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0x22, 0x7d]);
  });
});

describe("canonicalJson rejects values without one encoding", () => {
  const bad: [string, unknown, string][] = [
    ["fraction", { a: 1.5 }, "/a"],
    ["NaN", [NaN], "/0"],
    ["Infinity", { x: { y: Infinity } }, "/x/y"],
    ["unsafe integer", 2 ** 53, ""],
    ["undefined member", { a: undefined }, "/a"],
    ["undefined", undefined, ""],
    ["bigint", 1n, ""],
    ["function", { f: () => 1 }, "/f"],
    ["Date", { d: new Date(0) }, "/d"],
    ["Map", new Map(), ""],
    ["sparse array", [1, , 3], "/1"],
  ];
  it.each(bad)("%s", (_name, value, path) => {
    let err: unknown;
    try {
      canonicalJson(value);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CanonicalEncodingError);
    expect((err as CanonicalEncodingError).path).toBe(path);
  });
  it("rejects nesting deeper than MAX_DEPTH but accepts MAX_DEPTH", () => {
    const nest = (n: number): JsonValue => (n === 0 ? 0 : [nest(n - 1)]);
    expect(() => canonicalJson(nest(MAX_DEPTH))).not.toThrow();
    expect(() => canonicalJson(nest(MAX_DEPTH + 1))).toThrow(CanonicalEncodingError);
  });
  it("accepts null-prototype objects", () => {
    const o = Object.create(null) as Record<string, number>;
    o.z = 1;
    o.a = 2;
    expect(canonicalJson(o)).toBe('{"a":2,"z":1}');
  });
});

const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.maxSafeInteger(),
    fc.string({ unit: "binary" }),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: "binary" }), tie("v"), { maxKeys: 4 }),
  ),
})).v;

describe("canonicalJson properties", () => {
  it("is valid JSON that parses back to an equal value", () => {
    fc.assert(fc.property(jsonValue, (v) => {
      expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
    }));
  });
  it("is a fixed point: encoding the parsed encoding gives the same text", () => {
    fc.assert(fc.property(jsonValue, (v) => {
      const text = canonicalJson(v);
      expect(canonicalJson(JSON.parse(text))).toBe(text);
    }));
  });
  it("does not depend on key insertion order", () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), jsonValue, { maxKeys: 8 }), (d) => {
      const reversed = Object.fromEntries(Object.entries(d).reverse());
      expect(canonicalJson(reversed)).toBe(canonicalJson(d));
    }));
  });
  it("contains no whitespace outside strings and is well-formed UTF-8", () => {
    fc.assert(fc.property(jsonValue, (v) => {
      const text = canonicalJson(v);
      expect(text.replace(/"(?:[^"\\]|\\.)*"/g, "")).not.toMatch(/\s/);
      expect(new TextDecoder("utf-8", { fatal: true }).decode(canonicalBytes(v))).toBe(text);
    }));
  });
  it("distinct values have distinct encodings", () => {
    fc.assert(fc.property(jsonValue, jsonValue, (a, b) => {
      const sameValue = JSON.stringify(JSON.parse(canonicalJson(a))) === JSON.stringify(JSON.parse(canonicalJson(b)));
      expect(canonicalJson(a) === canonicalJson(b)).toBe(sameValue);
    }));
  });
});
