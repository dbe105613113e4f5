import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kbField, parseCmdline, parsePasswd, parseProcStat, parseProcStatus, pickProcStatus } from "./proc-pid.ts";

/** Builds a stat line: fields 3..52 after `pid (comm) `, with the ones we read set explicitly. */
function statLine(pid: number, comm: string, over: Record<number, string | number> = {}): string {
  const fields: (string | number)[] = [];
  for (let n = 3; n <= 52; n++) fields.push(over[n] ?? (n === 3 ? "S" : 0));
  return `${pid} (${comm}) ${fields.join(" ")}\n`;
}

describe("parseProcStat", () => {
  it("reads state, ppid, cpu ticks, threads and start time from their proc(5) fields", () => {
    const s = parseProcStat(statLine(1234, "sshd", { 3: "R", 4: 1, 14: 150, 15: 50, 20: 3, 22: 98765 }));
    expect(s).toEqual({ pid: 1234, comm: "sshd", state: "R", ppid: 1, cpu_ticks: 200, start_ticks: 98765, threads: 3 });
  });

  it("splits at the last ')' so comm may contain spaces and parentheses", () => {
    const s = parseProcStat(statLine(1234, "a) b", { 4: 1, 20: 7 }));
    expect(s).toMatchObject({ pid: 1234, comm: "a) b", state: "S", ppid: 1, threads: 7 });
    expect(parseProcStat(statLine(9, "(sd-pam)", { 4: 8 }))).toMatchObject({ comm: "(sd-pam)", ppid: 8 });
  });

  it("parses a real-looking kernel line", () => {
    const line = "1234 (a) b) S 1 1234 1234 0 -1 4194560 100 0 0 0 12 8 0 0 20 0 2 0 5555 1000 200 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
    expect(parseProcStat(line)).toEqual({ pid: 1234, comm: "a) b", state: "S", ppid: 1, cpu_ticks: 20, start_ticks: 5555, threads: 2 });
  });

  it("answers like splitting every field (the reading before the scanner), on any input", () => {
    const bySplit = (text: string) => {
      const open = text.indexOf("(");
      const close = text.lastIndexOf(")");
      if (open < 0 || close < open) return null;
      const rest = text.slice(close + 2).split(" ");
      if (rest.length < 20) return null;
      const field = (n: number): number => Number(rest[n - 3]);
      return { pid: Number(text.slice(0, open).trim()), comm: text.slice(open + 1, close), state: rest[0] ?? "?", ppid: field(4), cpu_ticks: field(14) + field(15), start_ticks: field(22), threads: field(20) };
    };
    const field = fc.oneof(fc.nat().map(String), fc.constantFrom("", "-1", "0\n", "18446744073709551615", "x", " ", "R"), fc.string({ maxLength: 3 }));
    const line = fc.tuple(fc.nat(), fc.string({ maxLength: 6 }), fc.array(field, { maxLength: 30 }), fc.boolean())
      .map(([pid, comm, fields, nl]) => `${pid} (${comm}) ${fields.join(" ")}${nl ? "\n" : ""}`);
    fc.assert(fc.property(fc.oneof(line, fc.string({ maxLength: 40 })), (text) => {
      expect(parseProcStat(text)).toEqual(bySplit(text));
    }), { numRuns: 3000 });
  });

  it("returns null for malformed or truncated input", () => {
    expect(parseProcStat("")).toBeNull();
    expect(parseProcStat("1234 no parens S 1")).toBeNull();
    expect(parseProcStat("1234 )x( S 1")).toBeNull();
    expect(parseProcStat("1234 (bash) S 1 2 3")).toBeNull();
  });
});

describe("pickProcStatus", () => {
  const text = "Name:\tmy proc\nUmask:\t0022\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t    2048 kB\nVmSize:\t\t10 kB\n";
  it("answers like parseProcStatus for the keys asked, and leaves absent keys out", () => {
    const all = parseProcStatus(text);
    const keys = ["Name", "Uid", "VmRSS", "VmSize", "VmSwap"];
    expect(pickProcStatus(text, keys)).toEqual(Object.fromEntries(keys.filter((k) => k in all).map((k) => [k, all[k]])));
  });
  it("does not match a key inside another key or a value", () => {
    expect(pickProcStatus("XName:\tx\nNameless:\ty\n", ["Name"])).toEqual({});
    expect(pickProcStatus("Name:\tz", ["Name"])).toEqual({ Name: "z" });
  });
});

describe("parseProcStatus / kbField", () => {
  const status = parseProcStatus("Name:\tmy proc\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t    2048 kB\nVmSize:\t\t10 kB\nno colon here\n");

  it("maps keys to trimmed values", () => {
    expect(status.Name).toBe("my proc");
    expect(status.Uid).toBe("1000\t1000\t1000\t1000");
    expect(Object.keys(status)).toEqual(["Name", "Uid", "VmRSS", "VmSize"]);
  });

  it("converts kB fields to bytes and gives 0 when absent or not kB", () => {
    expect(kbField(status, "VmRSS")).toBe(2048 * 1024);
    expect(kbField(status, "VmSize")).toBe(10 * 1024);
    expect(kbField(status, "VmSwap")).toBe(0);
    expect(kbField({ X: "12 MB" }, "X")).toBe(0);
  });
});

describe("parseCmdline", () => {
  it("splits on NUL and drops the one trailing NUL", () => {
    expect(parseCmdline("/usr/bin/python3\0-m\0http.server\0")).toEqual(["/usr/bin/python3", "-m", "http.server"]);
  });

  it("keeps arguments containing spaces and empty arguments in the middle", () => {
    expect(parseCmdline("sh\0-c\0echo a b\0\0last\0")).toEqual(["sh", "-c", "echo a b", "", "last"]);
  });

  it("keeps a trailing empty argument (two NULs at the end)", () => {
    expect(parseCmdline("prog\0\0")).toEqual(["prog", ""]);
  });

  it("handles no trailing NUL (argv rewritten by the process) and empty cmdline (kernel thread)", () => {
    expect(parseCmdline("nginx: worker process")).toEqual(["nginx: worker process"]);
    expect(parseCmdline("")).toEqual([]);
  });
});

describe("parsePasswd", () => {
  it("maps uids to names", () => {
    const users = parsePasswd("root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice,,,:/home/alice:/bin/zsh\n");
    expect(users.get(0)).toBe("root");
    expect(users.get(1000)).toBe("alice");
    expect(users.size).toBe(2);
  });

  it("skips comments, blank lines, short lines and entries without a numeric uid", () => {
    const users = parsePasswd("# comment\n\nshort:x\nroot:x:0:0::/root:/bin/sh\n+::::::\n+@netgroup::::::\nbad:x:abc:0::/:/bin/false\n");
    expect([...users]).toEqual([[0, "root"]]);
  });

  it("keeps the first name for a duplicated uid, like getpwuid(3)", () => {
    const users = parsePasswd("root:x:0:0::/root:/bin/sh\ntoor:x:0:0::/root:/bin/csh\n");
    expect(users.get(0)).toBe("root");
  });
});
