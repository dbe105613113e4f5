import { describe, expect, it } from "vitest";
import { countCpuList } from "./get-load.ts";

describe("countCpuList", () => {
  it.each([
    ["0-3,6,8-9", 7],
    ["0", 1],
    ["0-0", 1],
    ["0-63", 64],
    ["0,2,4", 3],
    ["0-3\n", 4],
    ["", 0],
    ["\n", 0],
  ])("%j → %i", (list, n) => {
    expect(countCpuList(list)).toBe(n);
  });
});
