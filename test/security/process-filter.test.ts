import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryAction } from "../../src/app/query.ts";
import { hostEntry } from "../../src/app/hosts.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { realContext } from "../helpers/real-context.ts";

/**
 * Red team, route "list_processes' name filter as an oracle on a secret in a process title": a real process
 * whose argv[0] (its title, as setproctitle-style daemons write it) holds a password, the real /proc, the
 * daemon's query path. The filter must see what the answer shows (the redacted title), as read_log_file's and
 * read_journal's grep do (issue 12).
 */
const PASSWORD = "Lq7vX2pK9sW4zT1";
const TITLE = `hg-worker-${process.pid} --password=${PASSWORD} queue`;
let ctx: ActionContext;
let child: ChildProcess;

async function pidsMatching(name: string): Promise<number[]> {
  const r = await queryAction("ListProcesses", { name, limit: 500 }, hostEntry(ctx, "local"));
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  const text = JSON.stringify(r.value.data);
  expect(text).not.toContain(PASSWORD);
  return (r.value.data as { processes: { pid: number }[] }).processes.map((p) => p.pid);
}

beforeAll(async () => {
  ctx = await realContext();
  child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { argv0: TITLE, stdio: "ignore" });
  // Poll until the kernel shows the title (exec has happened).
  for (let i = 0; i < 500; i++) {
    try {
      if (readFileSync(`/proc/${child.pid}/cmdline`, "utf8").startsWith(TITLE)) break;
    } catch { /* not yet */ }
    await new Promise((r) => setImmediate(r));
  }
});
afterAll(() => {
  child.kill("SIGKILL");
});

describe("route: list_processes name filter on a password in a process title", () => {
  it("the process is found by the visible part of its title, its argv redacted", async () => {
    expect(readFileSync(`/proc/${child.pid}/cmdline`, "utf8")).toContain(PASSWORD); // the secret is really there
    expect(await pidsMatching(`hg-worker-${process.pid} --password=`)).toEqual([child.pid]);
    const r = await queryAction("GetProcess", { pid: child.pid }, hostEntry(ctx, "local"));
    expect(r.ok && (r.value.data as { argv: string[] }).argv[0]).toBe(`hg-worker-${process.pid} --password=[redacted:credential_flag] queue`);
  });

  it("no prefix or piece of the password matches", async () => {
    for (const guess of [`--password=${PASSWORD.slice(0, 1)}`, `--password=${PASSWORD.slice(0, 5)}`, PASSWORD.slice(3, 9), PASSWORD, `${PASSWORD} queue`]) {
      expect(await pidsMatching(guess), guess).not.toContain(child.pid);
    }
  });
});
