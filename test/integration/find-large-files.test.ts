/**
 * FindLargeFiles (issue 24, trial f24b finding 6) on planted trees: files under min_bytes are counted in the note (an
 * empty answer says why), the walk stops inside a large directory at its budget and answers what it found, and the
 * budget's bound stays under the daemon's query timeout so a call never fails for lack of time with nothing to show.
 */
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUERY_TIMEOUT_MS } from "../../src/app/query.ts";
import findLargeFiles, { MAX_BUDGET_MS } from "../../src/core/catalogue/actions/find-large-files.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { realContext } from "../helpers/real-context.ts";

let ctx: ActionContext;
let dir: string;
beforeAll(async () => {
  ctx = await realContext();
  dir = mkdtempSync(join(tmpdir(), "hostgate-large-files-"));
});
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

const run = (params: Record<string, unknown>, c: ActionContext = ctx) => findLargeFiles.run(findLargeFiles.params.parse(params), c);

describe("FindLargeFiles notes and bounds", () => {
  it("small files only: files [] with a note counting those under min_bytes and what to pass; min_bytes 0 lists them", async () => {
    const root = join(dir, "logs");
    mkdirSync(join(root, "sub"), { recursive: true });
    for (const [name, size] of [["syslog", 5000], ["auth.log", 300], ["sub/app.log", 20]] as const) { writeFileSync(join(root, name), ""); truncateSync(join(root, name), size); }
    const r = await run({ path: root });
    expect(r.files).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.note).toBe("3 files are under min_bytes (1048576 bytes) and not listed; pass a smaller min_bytes (0 lists every file) to see them");
    const all = await run({ path: root, min_bytes: 0 });
    expect(all.files.map((f) => f.bytes)).toEqual([5000, 300, 20]);
    expect(all.note).toBeNull();
    const some = await run({ path: root, min_bytes: 100, limit: 1 });
    expect(some.files.map((f) => f.bytes)).toEqual([5000]);
    expect(some.note).toBeNull(); // the limit is full: the small ones would not have been listed anyway
  });

  it("the budget stops the walk inside one large directory; the files found so far are answered, the note names budget_ms", async () => {
    const root = join(dir, "many");
    mkdirSync(root);
    for (let i = 0; i < 300; i++) writeFileSync(join(root, `f${String(i).padStart(3, "0")}`), "x".repeat(i + 1));
    let t = 0;
    const clock = { now: (): number => (t += 1) };
    const r = await run({ path: root, min_bytes: 0, limit: 200, budget_ms: 100 }, { ...ctx, clock });
    expect(r.complete).toBe(false);
    expect(r.examined).toBeGreaterThan(0);
    expect(r.examined).toBeLessThan(300);
    expect(r.files.length).toBe(r.examined);
    expect(r.note).toBe("stopped early: the 100 ms budget ran out; the files found so far are listed; pass a deeper path or a larger budget_ms (up to 15000)");
    t = 0;
    const max = await run({ path: root, min_bytes: 0, budget_ms: MAX_BUDGET_MS }, { ...ctx, clock: { now: (): number => (t += 1000) } });
    expect(max.note).toMatch(/; pass a deeper path \(budget_ms is at its 15000 maximum\)$/);
  });

  it("budget_ms is bounded under the daemon's query timeout, and a larger one is refused naming budget_ms", () => {
    expect(MAX_BUDGET_MS).toBeLessThanOrEqual(QUERY_TIMEOUT_MS - 5000);
    const r = findLargeFiles.params.safeParse({ path: "/var/log", budget_ms: 30_000 });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain("budget_ms");
    expect(findLargeFiles.params.safeParse({ path: "/var/log", budget_ms: MAX_BUDGET_MS }).success).toBe(true);
  });
});
