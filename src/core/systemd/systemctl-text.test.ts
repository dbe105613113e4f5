import { describe, expect, it } from "vitest";
import { parseExecCommands, parseListUnitsJson, parseShow, parseUnitFileChanges, showNumber, showTimestampToIso } from "./systemctl-text.ts";

describe("systemctl text parsers (the SSH fallback without systemd-stdio-bridge)", () => {
  it("reads enable/disable change lines in a UTF-8 and a C locale, quoted (systemd 253+) or not", () => {
    const text = [
      "Created symlink /etc/systemd/system/multi-user.target.wants/a.service → /etc/systemd/system/a.service.",
      "Created symlink \"/etc/systemd/system/timers.target.wants/t.timer\" -> \"/etc/systemd/system/t.timer\".",
      "Removed \"/etc/systemd/system/multi-user.target.wants/a.service\".",
      "Removed /etc/systemd/system/b.service.",
      "Synchronizing state of a.service with SysV service script",
    ].join("\n");
    expect(parseUnitFileChanges(text)).toEqual([
      { type: "symlink", file: "/etc/systemd/system/multi-user.target.wants/a.service", destination: "/etc/systemd/system/a.service" },
      { type: "symlink", file: "/etc/systemd/system/timers.target.wants/t.timer", destination: "/etc/systemd/system/t.timer" },
      { type: "unlink", file: "/etc/systemd/system/multi-user.target.wants/a.service", destination: "" },
      { type: "unlink", file: "/etc/systemd/system/b.service", destination: "" },
    ]);
  });

  it("reads show values: timestamps to the microsecond, [not set] as null, the first '=' splits", () => {
    const p = parseShow("Description=a=b\nMemoryCurrent=[not set]\nStateChangeTimestamp=Tue 2026-12-01 18:00:00.123456 UTC\nMainPID=42\n");
    expect(p.get("Description")).toBe("a=b");
    expect(showNumber(p.get("MemoryCurrent"))).toBeNull();
    expect(showNumber(p.get("MainPID"))).toBe(42);
    expect(showTimestampToIso(p.get("StateChangeTimestamp"))).toBe("2026-12-01T18:00:00.123Z");
    expect(showTimestampToIso("n/a")).toBeNull();
    expect(showTimestampToIso("")).toBeNull();
  });

  it("reads ExecStart groups: path, argv, ignore_errors, pid, CLD code and status", () => {
    const v = "{ path=/bin/sleep ; argv[]=/bin/sleep infinity ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=7 ; code=exited ; status=3/NOTIMPLEMENTED } { path=/bin/true ; argv[]=/bin/true ; ignore_errors=yes ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }";
    expect(parseExecCommands(v)).toEqual([
      { path: "/bin/sleep", argv: ["/bin/sleep", "infinity"], ignore_errors: false, pid: 7, code: 1, status: 3 },
      { path: "/bin/true", argv: ["/bin/true"], ignore_errors: true, pid: 0, code: 0, status: 0 },
    ]);
    expect(parseExecCommands(undefined)).toEqual([]);
  });

  it("list-units JSON: rows mapped; text that is not a JSON array is an error (an old systemctl)", () => {
    expect(parseListUnitsJson('[{"unit":"a.service","load":"loaded","active":"active","sub":"running","description":"A"}]')).toEqual([
      { unit: "a.service", description: "A", load_state: "loaded", active_state: "active", sub_state: "running" },
    ]);
    expect(() => parseListUnitsJson("UNIT LOAD ACTIVE SUB DESCRIPTION")).toThrow();
    expect(() => parseListUnitsJson("{}")).toThrow(/array/);
  });
});
