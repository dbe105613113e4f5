// Every systemd case of the shared corpus (copied to test/fixtures/corpus-systemd.jsonl) as a test.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createMockUnitManagers } from "../src/adapters/systemd-mock.ts";
import { decodeExecCommands } from "../src/adapters/systemd-dbus-decode.ts";
import { GetServiceStatus } from "../src/core/catalogue/actions/get-service-status.ts";
import { ListUnits } from "../src/core/catalogue/actions/list-units.ts";
import type { ActionContext } from "../src/core/catalogue/action.ts";
import { escapeBusLabel, login1UserPath, unitNameFromObjectPath, unitObjectPath } from "../src/core/systemd/bus-path.ts";
import { escapeIntoTemplate, escapeUnitPath, escapeUnitString, unescapeUnitString } from "../src/core/systemd/escape.ts";
import { isValidUnitName, normalizeUnitArg, systemctlArgv, unitNameProblem } from "../src/core/systemd/unit-name.ts";

interface Case { id: string; area: string; input: string; expected: string; why: string }
const cases: Case[] = readFileSync(new URL("./fixtures/corpus-systemd.jsonl", import.meta.url), "utf8")
  .split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Case);
const byId = new Map(cases.map((c) => [c.id, c]));
const expected = (id: string): string => byId.get(id)!.expected;

function ctx(): ActionContext {
  return { units: createMockUnitManagers() } as unknown as ActionContext;
}

const checks: Record<string, () => void | Promise<void>> = {
  U001: () => {
    expect(`${escapeUnitPath("/dev/disk/by-uuid/1234-ABCD")}.device`).toBe(expected("U001"));
  },
  U002: () => {
    expect(unitObjectPath("dbus-broker.service")).toBe(expected("U002"));
  },
  U003: () => {
    expect(unitObjectPath("run-credentials-systemd\\x2dsysctl.service.mount")).toBe(expected("U003"));
  },
  U004: () => {
    expect(unitObjectPath("2fa-sync.service")).toBe(expected("U004"));
  },
  U005: () => {
    expect(unitObjectPath("my_app.service")).toBe(expected("U005"));
  },
  U006: () => {
    expect(expected("U006")).toContain(login1UserPath(1000));
    expect(`/org/freedesktop/login1/user/${escapeBusLabel("1000")}`).not.toBe(login1UserPath(1000));
  },
  U007: () => {
    expect(isValidUnitName("-.mount")).toBe(true);
    expect(JSON.stringify(systemctlArgv("status", "-.mount"))).toBe(expected("U007").slice(expected("U007").indexOf("["), expected("U007").indexOf("]") + 1).replace(/ /g, ""));
  },
  U008: () => {
    expect(unescapeUnitString("-org-example")).toBe("/org/example");
  },
  U009: async () => {
    await expect(GetServiceStatus.run({ unit: "ntopng@*" }, ctx())).rejects.toMatchObject({ code: "invalid_unit_name" });
    await expect(GetServiceStatus.run({ unit: "ntopng@*.service" }, ctx())).rejects.toThrow(/glob/);
    const listed = await ListUnits.run({ pattern: "postgresql@*", limit: 200 }, ctx());
    expect(listed.units.map((u) => u.unit)).toEqual(["postgresql@15-main.service"]);
  },
  U010: () => {
    expect(unitNameProblem("tmp-foo-mnt.automount)")).not.toBeNull();
    expect(() => normalizeUnitArg("tmp-foo-mnt.automount)", "service")).toThrow(/invalid unit name/);
  },
  U011: () => {
    expect(() => normalizeUnitArg("foo@bar.servie", "service")).toThrow(/unknown unit type suffix '\.servie'/);
  },
  U012: () => {
    expect(unitNameProblem("my service.service")).toMatch(/' '/);
    expect(`${escapeUnitString("my service")}.service`).toBe("my\\x20service.service");
  },
  U014: () => {
    expect(isValidUnitName("abc.def.service")).toBe(true);
  },
  U015: () => {
    expect(isValidUnitName("getty@tty1.service")).toBe(true);
    expect(isValidUnitName("systemd-fsck@dev-disk-by\\x2duuid-1234\\x2dABCD.service")).toBe(true);
  },
  U016: () => {
    expect(isValidUnitName("a:b.service")).toBe(true);
    expect(escapeUnitString("a:b")).toBe("a:b");
  },
  U017: () => {
    expect(escapeUnitString(".hidden")).toBe(expected("U017").split(" ")[0]);
  },
  U018: () => {
    const name = "dev-disk-by\\x2duuid-1234.device";
    expect(systemctlArgv("status", name)[3]).toBe(name); // argv, no shell: the backslash survives
    expect(unescapeUnitString("dev-disk-byx2duuid-1234")).not.toBe(unescapeUnitString("dev-disk-by\\x2duuid-1234"));
  },
  U019: () => {
    const name = "dev-disk-by\\x2duuid-1234.device";
    expect(normalizeUnitArg(name, "service")).toBe(name);
    expect(escapeUnitString("dev-disk-by\\x2duuid-1234")).toContain("\\x5cx2d"); // why re-escaping is wrong
  },
  U020: () => {
    expect(escapeIntoTemplate("nginx@.service", "/srv/foo-bar", { path: true })).toBe("nginx@srv-foo\\x2dbar.service");
  },
  U021: () => {
    const unit = `dbus-:1.2-${escapeUnitString("net.example.foo-bar")}@1.service`;
    expect(unit).toBe(expected("U021"));
    expect(isValidUnitName(unit)).toBe(true);
  },
  U023: () => {
    // a(sasbttttuii) as dbus-next delivers it: uint64 as BigInt
    const raw = [["/usr/sbin/nginx", ["/usr/sbin/nginx", "-g", "daemon on;"], false, 1764460800000000n, 5000000n, 0n, 0n, 1034, 0, 0]];
    expect(decodeExecCommands(raw)).toEqual([{ path: "/usr/sbin/nginx", argv: ["/usr/sbin/nginx", "-g", "daemon on;"], ignore_errors: false, pid: 1034, code: 0, status: 0 }]);
  },
  U025: () => {
    expect(unitObjectPath("foo_2dbar.service")).toBe("/org/freedesktop/systemd1/unit/foo_5f2dbar_2eservice");
    expect(unitNameFromObjectPath("/org/freedesktop/systemd1/unit/foo_5f2dbar_2eservice")).toBe("foo_2dbar.service");
  },
};

describe("corpus: systemd", () => {
  it("has a check for every systemd case in the fixture and vice versa", () => {
    expect(cases.length).toBeGreaterThanOrEqual(22);
    expect(Object.keys(checks).sort()).toEqual(cases.map((c) => c.id).sort());
  });
  for (const c of cases) {
    it(`${c.id}: ${c.input}`, async () => {
      const check = checks[c.id];
      expect(check, `no check for ${c.id}`).toBeDefined();
      await check!();
    });
  }
});
