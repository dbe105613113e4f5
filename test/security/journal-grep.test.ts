import { describe, expect, it } from "vitest";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import ReadJournal from "../../src/core/catalogue/actions/read-journal.ts";

/**
 * Red team, route "read_journal's grep as an oracle on redacted values" (issue 12, second pass). journalctl is
 * replaced by a recorded answer (mock: a journal with planted entries cannot be written here without a running
 * journald); what is tested is the action's own filtering and redaction, and that no filter reaches journalctl.
 */
const PASSWORD = "Lq7vX2pK9sW4zT1";
const KEY = ["-----BEGIN PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj", "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu", "-----END PRIVATE KEY-----"];
const MESSAGES = ["start", `db password=${PASSWORD} ok`, ...KEY, "end"];

function journal(argvSeen: string[][]): ActionContext {
  const stdout = MESSAGES.map((m, i) => JSON.stringify({ __REALTIME_TIMESTAMP: String(1764550800000000 + i), PRIORITY: "6", MESSAGE: m, SYSLOG_IDENTIFIER: "app" })).join("\n") + "\n";
  const host = {
    which: () => Promise.resolve("/usr/bin/journalctl"),
    run: (argv: string[]) => {
      argvSeen.push(argv);
      return Promise.resolve({ command: "journalctl", argv, exit_code: 0, signal: null, timed_out: false, duration_ms: 1, stdout, stderr: "", truncated: false });
    },
  };
  return { host } as unknown as ActionContext;
}

describe("route: read_journal grep on a hidden password and a key logged line by line", () => {
  it("the filter never reaches journalctl, and a prefix of the password matches nothing", async () => {
    const seen: string[][] = [];
    const answers = new Set<number>();
    for (const guess of ["password=L", "password=X", "password=Lq7", PASSWORD.slice(3, 9), "MIIEvQ", "7NXp98"]) {
      const r = await ReadJournal.run({ limit: 100, grep: guess }, journal(seen));
      answers.add(r.entries.length);
      expect(JSON.stringify(r)).not.toContain(PASSWORD);
    }
    expect([...answers]).toEqual([0]);
    expect(seen.flat().some((a) => a.startsWith("--grep"))).toBe(false);
  });

  it("grep on the label finds the entry, redacted; the key lines come back as markers", async () => {
    const r = await ReadJournal.run({ limit: 100, grep: "password=" }, journal([]));
    expect(r.entries.map((e) => e.message)).toEqual(["db password=[redacted:credential_assignment] ok"]);
    const all = await ReadJournal.run({ limit: 100 }, journal([]));
    const text = all.entries.map((e) => e.message).join("\n");
    for (const line of KEY.slice(1, 3)) expect(text).not.toContain(line.slice(0, 20));
  });
});

describe("provenance counts what read_journal redacted itself (newcomer report)", () => {
  it("redactions equals the markers in the entries returned, through the query path", async () => {
    const { queryAction } = await import("../../src/app/query.ts");
    const { hostEntry } = await import("../../src/app/hosts.ts");
    const host = hostEntry({ ...journal([]), family: "debian" }, "local");
    const markers = (r: Awaited<ReturnType<typeof queryAction>>): number => (r.ok ? JSON.stringify(r.value.data).split("[redacted:").length - 1 : -1);
    const all = await queryAction("ReadJournal", {}, host);
    expect(all.ok && all.value.meta.redactions).toBe(5); // the password + the key's four lines
    for (const grep of ["password", "start", "PRIVATE"]) {
      const r = await queryAction("ReadJournal", { grep }, host);
      expect(r.ok && r.value.meta.redactions, grep).toBe(markers(r));
    }
  });
});

