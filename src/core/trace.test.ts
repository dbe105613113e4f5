/** core/trace.ts: W3C Trace Context from `_meta` (kept, or ignored as the W3C spec says), error types, the no-op tracer. */
import { describe, expect, it } from "vitest";
import { errorTypeOf, NO_TRACER, traceCarrierOf } from "./trace.ts";

const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceCarrierOf", () => {
  it("keeps a valid traceparent and tracestate", () => {
    expect(traceCarrierOf({ traceparent: TP, tracestate: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", other: 1 })).toEqual({ traceparent: TP, tracestate: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE" });
    expect(traceCarrierOf({ traceparent: TP })).toEqual({ traceparent: TP });
  });

  it("a future version keeps its first 55 characters (W3C §3.2.4); version 00 with extra fields is invalid", () => {
    expect(traceCarrierOf({ traceparent: `01${TP.slice(2)}-what-ever` })).toEqual({ traceparent: `01${TP.slice(2)}` });
    expect(traceCarrierOf({ traceparent: `${TP}-extra` })).toBeUndefined();
  });

  it.each([
    ["no _meta", undefined],
    ["no traceparent", { tracestate: "a=b" }],
    ["not a string", { traceparent: 42 }],
    ["version ff", { traceparent: `ff${TP.slice(2)}` }],
    ["all-zero trace id", { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` }],
    ["all-zero parent id", { traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01` }],
    ["upper-case hex", { traceparent: TP.toUpperCase() }],
    ["short trace id", { traceparent: "00-4bf92f35-00f067aa0ba902b7-01" }],
    ["oversized", { traceparent: `01${TP.slice(2)}-${"x".repeat(200)}` }],
  ])("ignores a malformed context (%s): the request starts a new trace, it does not fail", (_why, meta) => {
    expect(traceCarrierOf(meta)).toBeUndefined();
  });

  it("drops a tracestate that is too long or holds control characters, keeping the traceparent", () => {
    expect(traceCarrierOf({ traceparent: TP, tracestate: `a=${"b".repeat(600)}` })).toEqual({ traceparent: TP });
    expect(traceCarrierOf({ traceparent: TP, tracestate: "a=b\nc=d" })).toEqual({ traceparent: TP });
  });
});

describe("errorTypeOf", () => {
  it("a HostgateError-like code, else the class name, never free text", () => {
    expect(errorTypeOf(Object.assign(new Error("blocked: rm -rf /"), { code: "refused" }))).toBe("refused");
    expect(errorTypeOf(new TypeError("x"))).toBe("TypeError");
    expect(errorTypeOf(Object.assign(new Error("x"), { code: "Not A Code!" }))).toBe("Error");
    expect(errorTypeOf("a string")).toBe("String");
    expect(errorTypeOf(null)).toBe("Error");
  });
});

describe("NO_TRACER", () => {
  it("runs the callback and passes its value and its throw through, with no context to send", async () => {
    await expect(NO_TRACER.span("x", {}, () => Promise.resolve(7))).resolves.toBe(7);
    await expect(NO_TRACER.span("x", {}, () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(NO_TRACER.carrier()).toBeUndefined();
    expect(NO_TRACER.enabled).toBe(false);
  });
});
