import { describe, expect, it } from "vitest";
import { parsePressure } from "./pressure.ts";

describe("parsePressure", () => {
  it("parses some and full lines", () => {
    const r = parsePressure("some avg10=1.50 avg60=0.25 avg300=0.00 total=123456\nfull avg10=0.10 avg60=0.20 avg300=0.30 total=42\n");
    expect(r.some).toEqual({ avg10: 1.5, avg60: 0.25, avg300: 0, total_us: 123456 });
    expect(r.full).toEqual({ avg10: 0.1, avg60: 0.2, avg300: 0.3, total_us: 42 });
  });

  it("reports full as null when only some is present (older cpu files)", () => {
    const r = parsePressure("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
    expect(r.some).toEqual({ avg10: 0, avg60: 0, avg300: 0, total_us: 0 });
    expect(r.full).toBeNull();
  });

  it("returns nulls for empty or unrecognised text", () => {
    expect(parsePressure("")).toEqual({ some: null, full: null });
    expect(parsePressure("partial avg10=1 avg60=1 avg300=1 total=1")).toEqual({ some: null, full: null });
  });
});
