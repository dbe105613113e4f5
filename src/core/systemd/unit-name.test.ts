import { describe, expect, it } from "vitest";
import { HostgateError } from "../errors.ts";
import { isValidUnitName, normalizeUnitArg, parseUnitName, systemctlArgv, unitNameProblem } from "./unit-name.ts";

describe("unit names", () => {
  it.each([
    "nginx.service", "-.mount", "getty@tty1.service", "getty@.service", "a:b.service", "abc.def.service",
    "dev-disk-by\\x2duuid-1234.device", "foo@bar@baz.service", "x.slice", "user@1000.service",
  ])("accepts %s", (n) => {
    expect(unitNameProblem(n)).toBeNull();
  });

  it.each([
    ["", "empty"], ["nginx", "no type suffix"], ["foo.servie", "unknown unit type"], [".service", "empty prefix"],
    ["@foo.service", "empty prefix"], ["my service.service", "' '"], ["a/b.service", "'/'"], ["ntopng@*.service", "glob"],
    ["foo\\.service", "backslash"], ["foo\\x2.service", "backslash"], ["a@b/c.service", "'/'"], ["é.service", "not allowed"],
  ])("rejects %j (%s)", (n, why) => {
    expect(unitNameProblem(n)).toContain(why);
  });

  it("rejects names over 255 characters and accepts exactly 255", () => {
    expect(isValidUnitName(`${"a".repeat(247)}.service`)).toBe(true);
    expect(isValidUnitName(`${"a".repeat(248)}.service`)).toBe(false);
  });

  it("parses kinds", () => {
    expect(parseUnitName("getty@tty1.service")).toMatchObject({ prefix: "getty", instance: "tty1", kind: "instance", type: "service" });
    expect(parseUnitName("getty@.service").kind).toBe("template");
    expect(parseUnitName("-.mount")).toMatchObject({ prefix: "-", instance: null, kind: "plain", type: "mount" });
  });

  it("throws invalid_unit_name with the reason", () => {
    expect(() => parseUnitName("x.bogus")).toThrow(HostgateError);
    try {
      parseUnitName("x.bogus");
    } catch (e) {
      expect((e as HostgateError).code).toBe("invalid_unit_name");
    }
  });

  it("normalizes tool arguments without mangling", () => {
    expect(normalizeUnitArg("nginx", "service")).toBe("nginx.service");
    expect(() => normalizeUnitArg("foo@bar.servie", "service")).toThrow(/unknown unit type/);
    expect(() => normalizeUnitArg("getty@.service", "service")).toThrow(/template/);
    expect(() => normalizeUnitArg("cron.timer", "service", { requireType: "service" })).toThrow(/\.timer/);
  });

  it("puts -- before the unit in systemctl argv", () => {
    expect(systemctlArgv("status", "-.mount")).toEqual(["systemctl", "status", "--", "-.mount"]);
    expect(systemctlArgv("show", "x.service", { user: true })).toEqual(["systemctl", "--user", "show", "--", "x.service"]);
  });
});
