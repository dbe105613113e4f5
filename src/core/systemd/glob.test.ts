import { describe, expect, it } from "vitest";
import { globMatch, isGlob } from "./glob.ts";

describe("globMatch", () => {
  it.each([
    ["*.service", "nginx.service", true], ["*.service", "nginx.timer", false], ["ssh*", "ssh.service", true],
    ["getty@tty?.service", "getty@tty1.service", true], ["[a-c]*", "backup.timer", true], ["[!a-c]*", "backup.timer", false],
    ["*@*.service", "postgresql@15-main.service", true], ["*@*.service", "cron.service", false], ["a[", "a[", true], ["", "", true], ["*", "", true],
  ])("%s vs %s → %s", (p, n, want) => {
    expect(globMatch(p, n)).toBe(want);
  });

  // 30 stars over 5000 characters: a backtracking matcher would not finish within the test's timeout; the
  // linear one answers at once (bench figures, not a timed assertion, are the speed check).
  it("is not exponential on many stars", () => {
    expect(globMatch(`${"*a".repeat(30)}b`, "a".repeat(5000))).toBe(false);
    expect(globMatch("*a".repeat(30), "a".repeat(5000))).toBe(true);
  });

  it("detects globs", () => {
    expect(isGlob("ntopng@*")).toBe(true);
    expect(isGlob("nginx.service")).toBe(false);
  });
});
