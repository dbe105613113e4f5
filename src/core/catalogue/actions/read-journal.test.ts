import { describe, expect, it } from "vitest";
import type { ActionContext } from "../action.ts";
import ReadJournal from "./read-journal.ts";

/** journalctl's observable behaviour (stdout, stderr, exit code) for one call; the rest of the context is unused. */
function ctxWith(stdout: string, stderr: string, exit_code = 0): ActionContext {
  const host = {
    which: () => Promise.resolve("/usr/bin/journalctl"),
    run: () => Promise.resolve({ command: "journalctl", argv: [], exit_code, signal: null, timed_out: false, duration_ms: 1, stdout, stderr, truncated: false }),
  };
  return { host } as unknown as ActionContext;
}

describe("ReadJournal", () => {
  it("says the host has no journal instead of answering an empty list (journalctl exits 0 there)", async () => {
    await expect(ReadJournal.run({ limit: 5 }, ctxWith("", "No journal files were found.\n"))).rejects.toMatchObject({ code: "unavailable", message: expect.stringContaining("no systemd journal") as string });
  });

  it("an existing journal with no matching entry is an empty list", async () => {
    expect(await ReadJournal.run({ limit: 5, unit: "nothing.service" }, ctxWith("", "-- No entries --\n"))).toEqual({ entries: [], truncated: false });
  });

  it("parses entries", async () => {
    const line = JSON.stringify({ __REALTIME_TIMESTAMP: "1764550800000000", PRIORITY: "6", MESSAGE: "hello", _SYSTEMD_UNIT: "a.service", SYSLOG_IDENTIFIER: "a", _PID: "7" });
    const r = await ReadJournal.run({ limit: 5 }, ctxWith(`${line}\n`, ""));
    expect(r.entries).toEqual([expect.objectContaining({ message: "hello", unit: "a.service", pid: 7, priority: "info" })]);
  });
});
