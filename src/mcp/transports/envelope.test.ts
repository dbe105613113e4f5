import { describe, expect, it } from "vitest";
import { checkEnvelope, INVALID_PARAMS, INVALID_REQUEST, isRequest, rpcError } from "./envelope.ts";

describe("checkEnvelope accepts well-formed messages", () => {
  it.each([
    ["request", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
    ["request with string id and params", { jsonrpc: "2.0", id: "abc", method: "tools/call", params: { name: "x" } }],
    ["request with id 0", { jsonrpc: "2.0", id: 0, method: "ping" }],
    ["notification", { jsonrpc: "2.0", method: "notifications/initialized" }],
    ["notification with params", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }],
    ["result response", { jsonrpc: "2.0", id: 5, result: {} }],
    ["error response", { jsonrpc: "2.0", id: "x", error: { code: -1, message: "no" } }],
    ["string progressToken", { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: "tok-1" } } }],
    ["integer progressToken and other _meta keys", { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: 7, "dev.x/y": {} } } }],
  ])("%s", (_label, msg) => {
    expect(checkEnvelope(msg)).toBeNull();
  });
});

describe("checkEnvelope rejects malformed messages", () => {
  it.each<[string, unknown, number, string | number | null]>([
    ["a batch", [{ jsonrpc: "2.0", id: 1, method: "ping" }], INVALID_REQUEST, null],
    ["an empty batch", [], INVALID_REQUEST, null],
    ["null", null, INVALID_REQUEST, null],
    ["a string", "hello", INVALID_REQUEST, null],
    ["a number", 42, INVALID_REQUEST, null],
    ["missing jsonrpc", { id: 1, method: "ping" }, INVALID_REQUEST, 1],
    ["jsonrpc 1.0", { jsonrpc: "1.0", id: "a", method: "ping" }, INVALID_REQUEST, "a"],
    ["jsonrpc as number", { jsonrpc: 2.0, id: 3, method: "ping" }, INVALID_REQUEST, 3],
    ["id null", { jsonrpc: "2.0", id: null, method: "ping" }, INVALID_REQUEST, null],
    ["id object", { jsonrpc: "2.0", id: { a: 1 }, method: "ping" }, INVALID_REQUEST, null],
    ["id boolean", { jsonrpc: "2.0", id: true, method: "ping" }, INVALID_REQUEST, null],
    ["id array", { jsonrpc: "2.0", id: [1], method: "ping" }, INVALID_REQUEST, null],
    ["id NaN", { jsonrpc: "2.0", id: Number.NaN, method: "ping" }, INVALID_REQUEST, null],
    ["method number", { jsonrpc: "2.0", id: 7, method: 5 }, INVALID_REQUEST, 7],
    ["method empty", { jsonrpc: "2.0", id: 7, method: "" }, INVALID_REQUEST, 7],
    ["method null", { jsonrpc: "2.0", id: 7, method: null }, INVALID_REQUEST, 7],
    ["params array", { jsonrpc: "2.0", id: 8, method: "ping", params: [1, 2] }, INVALID_PARAMS, 8],
    ["params string", { jsonrpc: "2.0", id: 8, method: "ping", params: "x" }, INVALID_PARAMS, 8],
    ["params null", { jsonrpc: "2.0", id: 8, method: "ping", params: null }, INVALID_PARAMS, 8],
    ["params null on notification", { jsonrpc: "2.0", method: "n", params: null }, INVALID_PARAMS, null],
    ["response without id", { jsonrpc: "2.0", result: {} }, INVALID_REQUEST, null],
    ["error response without id", { jsonrpc: "2.0", error: { code: 1, message: "m" } }, INVALID_REQUEST, null],
    ["no method nor result", { jsonrpc: "2.0", id: 9 }, INVALID_REQUEST, 9],
    ["empty object", {}, INVALID_REQUEST, null],
    ["progressToken {} (T2-04)", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_load", _meta: { progressToken: {} } } }, INVALID_PARAMS, 1],
    ["progressToken [1]", { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: { progressToken: [1] } } }, INVALID_PARAMS, 2],
    ["progressToken null", { jsonrpc: "2.0", id: 3, method: "ping", params: { _meta: { progressToken: null } } }, INVALID_PARAMS, 3],
    ["progressToken true", { jsonrpc: "2.0", id: 4, method: "ping", params: { _meta: { progressToken: true } } }, INVALID_PARAMS, 4],
    ["progressToken 1.5", { jsonrpc: "2.0", id: 5, method: "ping", params: { _meta: { progressToken: 1.5 } } }, INVALID_PARAMS, 5],
    ["_meta an array", { jsonrpc: "2.0", id: 6, method: "ping", params: { _meta: [] } }, INVALID_PARAMS, 6],
    ["_meta null", { jsonrpc: "2.0", id: 7, method: "ping", params: { _meta: null } }, INVALID_PARAMS, 7],
  ])("%s → error %i with id %j", (_label, msg, code, id) => {
    const err = checkEnvelope(msg);
    expect(err).not.toBeNull();
    expect(err!.jsonrpc).toBe("2.0");
    expect(err!.error.code).toBe(code);
    expect(err!.id).toBe(id);
    expect(err!.error.message.length).toBeGreaterThan(0);
  });
});

describe("rpcError / isRequest", () => {
  it("builds an error response", () => {
    expect(rpcError(3, -32600, "bad")).toEqual({ jsonrpc: "2.0", id: 3, error: { code: -32600, message: "bad" } });
  });

  it("tells requests from notifications and responses", () => {
    expect(isRequest({ jsonrpc: "2.0", id: 1, method: "ping" })).toBe(true);
    expect(isRequest({ jsonrpc: "2.0", method: "notifications/initialized" })).toBe(false);
    expect(isRequest({ jsonrpc: "2.0", id: 1, result: {} })).toBe(false);
    expect(isRequest(null)).toBe(false);
    expect(isRequest("ping")).toBe(false);
  });
});

describe("responses", () => {
  it("refuses a response with both result and error", () => {
    expect(checkEnvelope({ jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } })?.error.code).toBe(INVALID_REQUEST);
  });
  it("accepts an error response with id null, as JSON-RPC 2.0 §5 allows", () => {
    expect(checkEnvelope({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })).toBeNull();
  });
});
