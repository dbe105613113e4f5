import { describe, expect, it } from "vitest";
import type { ActionContext } from "../action.ts";
import { parseKmsg, unescapeKmsg } from "../../host/kmsg.ts";
import readKernelLog from "./read-kernel-log.ts";

// Planted /dev/kmsg records (Documentation/ABI/testing/dev-kmsg): what this machine's buffer may not hold (escapes,
// a dictionary line, a secret a driver printed, a user-space record, a record cut by the byte cap).
const KMSG = [
  "6,100,1000000,-;usb 1-1: new device",
  " SUBSYSTEM=usb",
  " DEVICE=c189:1",
  "3,101,2500000,-;ata1: failed command\\x0a  status 0x51",
  "4,102,3000000,-;db password=hunter2 in a module parameter",
  "14,103,4000000,-;systemd[1]: a user-space line (facility user)",
  "0,104,5000000,c;back\\x5cslash and caf\\xc3\\xa9",
  "6,105,600",
].join("\n");

function ctx(text = KMSG, truncated = false): { ctx: ActionContext; redactions: number[] } {
  const redactions: number[] = [];
  const host = {
    readRecords: () => Promise.resolve({ text, truncated }),
    readText: (path: string) => (path === "/proc/stat" ? Promise.resolve("cpu 1 2 3\nbtime 1764547200\n") : Promise.reject(new Error(path))),
  };
  return { ctx: { host, redacted: (n: number) => redactions.push(n) } as unknown as ActionContext, redactions };
}

describe("parseKmsg", () => {
  it("reads level and facility from the prival, skips dictionary lines and a cut record, decodes \\xNN as UTF-8 bytes", () => {
    const r = parseKmsg(KMSG);
    expect(r.map((x) => [x.seq, x.level, x.facility, x.ts_usec])).toEqual([[100, 6, 0, 1000000], [101, 3, 0, 2500000], [102, 4, 0, 3000000], [103, 6, 1, 4000000], [104, 0, 0, 5000000]]);
    expect(r[1]!.message).toBe("ata1: failed command\n  status 0x51");
    expect(r[4]!.message).toBe("back\\slash and café");
    expect(unescapeKmsg("no escapes")).toBe("no escapes");
  });
});

describe("ReadKernelLog (planted records)", () => {
  it("names facility and priority, times each record from btime, and redacts secrets before answering (counted)", async () => {
    const { ctx: c, redactions } = ctx();
    const out = await readKernelLog.run(readKernelLog.params.parse({}), c);
    expect(out.records.map((r) => [r.facility, r.priority])).toEqual([["kern", "info"], ["kern", "err"], ["kern", "warning"], ["user", "info"], ["kern", "emerg"]]);
    expect(out.records[1]).toMatchObject({ monotonic_s: 2.5, time: "2025-12-01T00:00:02.500Z" });
    expect(out.boot_time).toBe("2025-12-01T00:00:00.000Z");
    expect(out.records[2]!.message).toBe("db password=[redacted:credential_assignment] in a module parameter");
    expect(JSON.stringify(out)).not.toContain("hunter2");
    expect(redactions).toEqual([1]);
    expect(out.truncated).toBe(false);
  });

  it("min_priority, facility and since_boot_seconds filter before limit keeps the newest; truncated says so (and passes the byte cap on)", async () => {
    const err = await readKernelLog.run(readKernelLog.params.parse({ min_priority: "err" }), ctx().ctx);
    expect(err.records.map((r) => r.seq)).toEqual([101, 104]);
    expect((await readKernelLog.run(readKernelLog.params.parse({ facility: "user" }), ctx().ctx)).records.map((r) => r.seq)).toEqual([103]);
    expect((await readKernelLog.run(readKernelLog.params.parse({ since_boot_seconds: 3 }), ctx().ctx)).records.map((r) => r.seq)).toEqual([102, 103, 104]);
    const newest = await readKernelLog.run(readKernelLog.params.parse({ limit: 2 }), ctx().ctx);
    expect(newest.records.map((r) => r.seq)).toEqual([103, 104]);
    expect(newest.truncated).toBe(true);
    expect((await readKernelLog.run(readKernelLog.params.parse({}), ctx(KMSG, true).ctx)).truncated).toBe(true);
  });
});
