import { describe, expect, it } from "vitest";
import { isWithinRoot } from "./paths.ts";

describe("isWithinRoot", () => {
  it.each([
    ["/var/log/x", "/var/log", true],
    ["/var/log", "/var/log", true],
    ["/var/log/a/b/c.log", "/var/log", true],
    ["/var/log/x", "/var/log/", true],
    ["/var/log-archive/x", "/var/log", false],
    ["/var/logs", "/var/log", false],
    ["/var", "/var/log", false],
    ["/etc/passwd", "/var/log", false],
    ["/etc/passwd", "/", true],
  ])("%s within %s → %s", (path, root, expected) => {
    expect(isWithinRoot(path, root)).toBe(expected);
  });
});
