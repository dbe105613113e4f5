import { describe, expect, it } from "vitest";
import { parseMeminfo } from "./meminfo.ts";

const SAMPLE = `MemTotal:       16314112 kB
MemFree:         1234567 kB
MemAvailable:    8000000 kB
Active(anon):     100000 kB
HugePages_Total:       4
HugePages_Free:        0
Hugepagesize:       2048 kB
garbage line
`;

describe("parseMeminfo", () => {
  it("converts kB fields to bytes (KiB × 1024)", () => {
    const m = parseMeminfo(SAMPLE);
    expect(m.MemTotal).toBe(16314112 * 1024);
    expect(m.MemAvailable).toBe(8000000 * 1024);
    expect(m["Active(anon)"]).toBe(100000 * 1024);
    expect(m.Hugepagesize).toBe(2048 * 1024);
  });

  it("keeps unitless fields as plain counts", () => {
    const m = parseMeminfo(SAMPLE);
    expect(m.HugePages_Total).toBe(4);
    expect(m.HugePages_Free).toBe(0);
  });

  it("skips malformed lines and returns exactly the parsed keys", () => {
    expect(Object.keys(parseMeminfo(SAMPLE)).sort()).toEqual(
      ["Active(anon)", "HugePages_Free", "HugePages_Total", "Hugepagesize", "MemAvailable", "MemFree", "MemTotal"].sort(),
    );
    expect(parseMeminfo("")).toEqual({});
    expect(parseMeminfo("MemTotal: lots kB")).toEqual({});
  });
});
