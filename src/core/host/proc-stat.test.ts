import { describe, expect, it } from "vitest";
import { HostgateError } from "../errors.ts";
import { bootTimeSeconds } from "./proc-stat.ts";

describe("bootTimeSeconds (/proc/stat btime)", () => {
  it("reads the btime line among the others", () => {
    expect(bootTimeSeconds("cpu  1 2 3\nintr 5\nctxt 9\nbtime 1764633600\nprocesses 42\n")).toBe(1764633600);
  });

  it("refuses a /proc/stat without btime, or with a zero or garbled one, as unavailable instead of counting from 1970", () => {
    for (const text of ["cpu 1 2 3\n", "btime 0\n", "btime -5\n", "btime 12abc\n", ""]) {
      expect(() => bootTimeSeconds(text), JSON.stringify(text)).toThrow(HostgateError);
      try { bootTimeSeconds(text); } catch (e) { expect((e as HostgateError).code).toBe("unavailable"); }
    }
  });
});
