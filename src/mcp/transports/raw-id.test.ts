import { describe, expect, it } from "vitest";
import { frame, idKey, memberToken, numberChanged, RawIds } from "./raw-id.ts";

describe("memberToken", () => {
  it("finds a member's raw text at any depth, the last of duplicate keys, keys compared unescaped", () => {
    const text = ' { "a" : [1, {"id": 2}], "params": {"x": "}\\"", "requestId" : 12345678901234567890123 }, "id":1, "i\\u0064" : 9007199254740993 } ';
    expect(memberToken(text, ["id"])).toBe("9007199254740993");
    expect(memberToken(text, ["params", "requestId"])).toBe("12345678901234567890123");
    expect(memberToken(text, ["a"])).toBe('[1, {"id": 2}]');
    expect(memberToken(text, ["missing"])).toBeUndefined();
    expect(memberToken("[1]", ["id"])).toBeUndefined();
  });
});

describe("ids", () => {
  it("numberChanged says when a parsed number would be written back otherwise", () => {
    expect(numberChanged(9007199254740992, "9007199254740993")).toBe(true);
    expect(numberChanged(1e22, "10000000000000000000000")).toBe(true);
    expect(numberChanged(9007199254740992, "9007199254740992")).toBe(false);
    expect(numberChanged("1", '"1"')).toBe(false);
  });

  it("idKey keeps apart strings and numbers, and numbers that parse alike", () => {
    expect(idKey("1")).not.toBe(idKey(1));
    expect(idKey(9007199254740992, "9007199254740993")).not.toBe(idKey(9007199254740992));
    expect(idKey(9007199254740992, "9007199254740992")).toBe(idKey(9007199254740992));
  });

  it("frame writes the raw token in place of the id, and the message unchanged otherwise", () => {
    expect(frame({ jsonrpc: "2.0", id: "x", result: { a: 1 } }, "12345678901234567890123")).toBe('{"jsonrpc":"2.0","id":12345678901234567890123,"result":{"a":1}}');
    expect(frame({ jsonrpc: "2.0", id: 1, result: {} })).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
    expect(JSON.parse(frame({ jsonrpc: "2.0", id: "s", error: { code: 1, message: "m" } }, "1e3"))).toEqual({ jsonrpc: "2.0", id: 1000, error: { code: 1, message: "m" } });
  });

  it("RawIds maps stand-ins back and forgets them once released", () => {
    const t = new RawIds();
    const a = t.stand("9007199254740993");
    expect(t.raw(a)).toBe("9007199254740993");
    expect(t.standFor("9007199254740993")).toBe(a);
    t.release(a);
    expect(t.raw(a)).toBeUndefined();
    expect(t.raw(7)).toBeUndefined();
  });
});
