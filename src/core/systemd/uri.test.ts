import { HostgateError } from "../errors.ts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeUnitString } from "./escape.ts";
import { formatUnitUri, isValidUserSegment, parseUnitUri } from "./uri.ts";

describe("unit URIs", () => {
  it("formats canonical URIs without the type suffix in {name}", () => {
    expect(formatUnitUri({ scope: "system" }, "nginx.service")).toBe("systemd://system/unit/service/nginx");
    expect(formatUnitUri({ scope: "system" }, "-.mount")).toBe("systemd://system/unit/mount/-");
    expect(formatUnitUri({ scope: "system" }, "dev-disk-by\\x2duuid-1.mount", { definition: true })).toBe("systemd://system/unit/mount/dev-disk-by%5Cx2duuid-1/definition");
    expect(formatUnitUri({ scope: "user", user: "alice" }, "getty@tty1.service")).toBe("systemd://user/alice/unit/service/getty@tty1");
  });

  it("parses base and definition URIs", () => {
    expect(parseUnitUri("systemd://system/unit/service/nginx")).toEqual({ manager: { scope: "system" }, type: "service", unit: "nginx.service", definition: false });
    expect(parseUnitUri("systemd://user/1000/unit/timer/backup/definition")).toEqual({ manager: { scope: "user", user: "1000" }, type: "timer", unit: "backup.timer", definition: true });
    expect(parseUnitUri("systemd://system/unit/service/getty%40tty1").unit).toBe("getty@tty1.service");
  });

  it.each([
    ["http://system/unit/service/x", "systemd://"], ["systemd://host/unit/service/x", "authority"], ["systemd://system/unit/device/sda", "unsupported unit type"],
    ["systemd://system/unit/service/", "missing"], ["systemd://system/unit/service/x/y", "unexpected path"], ["systemd://system/unit/service/..", "'..'"],
    ["systemd://system/unit/service/%2e%2e", "'..'"], ["systemd://system/unit/service/a%2Fb", "'/'"], ["systemd://system/unit/service/a%0Ab", "control"],
    ["systemd://system/unit/service/x?y=1", "query"], ["systemd://system/unit/service/a%zz", "percent"], ["systemd://user/Root/unit/service/x", "invalid user"],
    ["systemd://user//unit/service/x", "invalid user"], ["systemd://system/unit/service/getty@", "template"], ["systemd://system/unit/service/é", "non-ASCII"],
  ])("rejects %s (%s)", (uri, why) => {
    expect(() => parseUnitUri(uri)).toThrow(why);
  });

  it("rejects invalid unit names inside a well-formed URI with invalid_unit_name", () => {
    expect(() => parseUnitUri("systemd://system/unit/service/a%20b")).toThrow(expect.objectContaining({ code: "invalid_unit_name" }) as Error);
  });

  it("validates users", () => {
    expect(isValidUserSegment("alice")).toBe(true);
    expect(isValidUserSegment("_svc-1")).toBe(true);
    expect(isValidUserSegment("machine$")).toBe(true);
    expect(isValidUserSegment("4294967295")).toBe(true);
    expect(isValidUserSegment("4294967296")).toBe(false);
    expect(isValidUserSegment("1abc")).toBe(false);
    expect(isValidUserSegment("a".repeat(33))).toBe(false);
  });

  it("round-trips every escaped name (property)", () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom("service", "timer", "mount"), (s, type) => {
      const unit = `${escapeUnitString(s)}.${type}`;
      const uri = formatUnitUri({ scope: "system" }, unit);
      expect(parseUnitUri(uri).unit).toBe(unit);
      expect(parseUnitUri(`${uri}/definition`).definition).toBe(true);
    }));
  });

  // M035-style inputs. The parser is one pass with no regexes (see uri.ts), so its cost is linear by construction;
  // what a test can check without timing is that each is refused, and the over-long one by the length cap first.
  it("refuses hostile long inputs, each for its own reason, the over-long one by the length cap", () => {
    const cases: [string, RegExp][] = [
      [`systemd://system/unit/service/${"a,".repeat(400)}!`, /invalid_unit_name|unit name/],
      [`systemd://system/unit/service/${"%".repeat(900)}`, /broken percent-escape/],
      [`systemd://${"/".repeat(1010)}`, /authority must be/],
      [`systemd://system/unit/service/${"a,".repeat(500)}!`, /longer than 1024 characters/],
      [`systemd://system/unit/service/${"a".repeat(100_000)}`, /longer than 1024 characters/],
    ];
    for (const [uri, why] of cases) {
      let err: unknown;
      try { parseUnitUri(uri); } catch (e) { err = e; }
      expect(err, uri.slice(0, 40)).toBeInstanceOf(HostgateError);
      expect(`${(err as HostgateError).code} ${(err as HostgateError).message}`).toMatch(why);
    }
  });
});
