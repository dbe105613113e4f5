import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryAction } from "../../src/app/query.ts";
import { hostEntry } from "../../src/app/hosts.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { realContext } from "../helpers/real-context.ts";

/**
 * list_processes on the real /proc while processes start and exit all the time (a shell starting `true` in a
 * loop): processes vanish between the listing of /proc and each of their reads. Every call must still answer,
 * with whole rows only (the unit test in src/core/catalogue/actions/list-processes.test.ts pins each race).
 */
let ctx: ActionContext;
let churn: ChildProcess;

beforeAll(async () => {
  ctx = await realContext();
  churn = spawn("/bin/sh", ["-c", "while :; do /bin/true; done"], { stdio: "ignore" });
});
afterAll(() => {
  churn.kill("SIGKILL");
});

describe("list_processes under process churn", () => {
  it("answers every call with whole rows, whatever the filter and sort", async () => {
    const argsList = [{}, { sort: "memory" }, { sort: "pid", limit: 500 }, { name: "true" }, { name: "sh", sort: "pid" }, { user: "root" }];
    let rows = 0;
    for (let i = 0; i < 60; i++) {
      const args = argsList[i % argsList.length]!;
      const r = await queryAction("ListProcesses", args, hostEntry(ctx, "local"));
      expect(r.ok, JSON.stringify(r)).toBe(true);
      if (!r.ok) return;
      const data = r.value.data as { processes: { pid: number; argv: unknown; name: unknown; started_at: string }[]; total: number };
      expect(data.total).toBeGreaterThanOrEqual(data.processes.length);
      for (const p of data.processes) {
        expect(p.pid).toBeGreaterThan(0);
        expect(Array.isArray(p.argv)).toBe(true);
        expect(typeof p.name).toBe("string");
        expect(Number.isNaN(Date.parse(p.started_at))).toBe(false);
      }
      rows += data.processes.length;
    }
    expect(rows).toBeGreaterThan(0);
    expect(churn.exitCode).toBeNull(); // the churn ran the whole time
  });
});

describe("list_processes names on the real /proc", () => {
  it("a name with a backslash is answered and matched as status shows it (escaped), not as stat does", async () => {
    // comm comes from the executable's file name: a symlink named `hg\<pid>` to sleep.
    const dir = mkdtempSync(join(tmpdir(), "hg-procs-name-"));
    const exe = join(dir, `h\\${process.pid % 1000}`);
    symlinkSync("/bin/sleep", exe);
    const child = spawn(exe, ["30"], { stdio: "ignore" });
    try {
      for (let i = 0; i < 500 && !readFileSync(`/proc/${child.pid}/stat`, "utf8").includes("(h\\"); i++) await new Promise((r) => setImmediate(r));
      const shown = `h\\\\${process.pid % 1000}`; // status escapes the backslash
      expect(readFileSync(`/proc/${child.pid}/status`, "utf8")).toContain(`Name:\t${shown}\n`);
      const r = await queryAction("ListProcesses", { name: shown, limit: 500 }, hostEntry(ctx, "local"));
      expect(r.ok && (r.value.data as { processes: { pid: number; name: string }[] }).processes.filter((p) => p.pid === child.pid).map((p) => p.name)).toEqual([shown]);
    } finally {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
