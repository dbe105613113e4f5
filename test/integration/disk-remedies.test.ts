import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import deleteLogFile from "../../src/core/catalogue/actions/delete-log-file.ts";
import getLargestDirectories from "../../src/core/catalogue/actions/get-largest-directories.ts";
import { filesOverSize } from "../../src/core/catalogue/actions/journal-files.ts";
import truncateLogFile from "../../src/core/catalogue/actions/truncate-log-file.ts";
import vacuumJournal from "../../src/core/catalogue/actions/vacuum-journal.ts";
import { agentPreview } from "../../src/core/transaction/agent-preview.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";

/**
 * The disk-full remedies of issue 22 on real files: log files in a directory this test makes under the real
 * /var/log (the actions are confined there), real hard links and symlinks, a real process holding a log open,
 * and du on a real tree. The whole plan → approve → execute path, journal and package cache included, is
 * test/e2e/disk-remedies.test.ts.
 */
const dir = `/var/log/hostgate-remedy-${process.pid}`;
let ctx: ActionContext;
const blockedOf = (p: { current?: unknown }): string | undefined => (p.current as { blocked?: string }).blocked;

beforeAll(async () => {
  ctx = await realContext();
  mkdirSync(dir, { recursive: true });
});
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe("DeleteLogFile and TruncateLogFile on real files under /var/log", () => {
  it("deletes a rotated log: the preview shows its exact size and changes nothing; apply removes it and reports the bytes", async () => {
    const path = `${dir}/app.log.2.gz`;
    writeFileSync(path, "x".repeat(5000));
    const preview = await deleteLogFile.preview({ path }, ctx);
    expect(preview.summary).toMatch(/^Delete .*app\.log\.2\.gz \(4\.9 KiB, last written /);
    expect(preview.warnings).toBeUndefined();
    expect(JSON.stringify(await deleteLogFile.preview({ path }, ctx))).toBe(JSON.stringify(preview)); // deterministic
    expect(existsSync(path)).toBe(true);
    expect(await deleteLogFile.apply({ path }, ctx, preview)).toEqual({ path, how: "delete", freed_bytes: 5000 });
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.includes("hostgate-rm"))).toEqual([]); // nothing left aside
  });

  it("warns that a name without a rotation suffix may be a live log", async () => {
    const path = `${dir}/live.log`;
    writeFileSync(path, "a\n");
    const preview = await deleteLogFile.preview({ path }, ctx);
    expect(preview.warnings?.[0]).toContain("TruncateLogFile frees it at once");
  });

  it("truncates a log a running process holds open: the size drops to 0 at once, the writer keeps writing, and the plan survives growth", async () => {
    const path = `${dir}/busy.log`;
    writeFileSync(path, "y".repeat(300_000));
    const writer: ChildProcess = spawn("sh", ["-c", `exec 3>>${path}; while :; do echo tick >&3; sleep 0.05; done`], { stdio: "ignore" });
    await once(writer, "spawn");
    try {
      const preview = await truncateLogFile.preview({ path }, ctx);
      expect(preview.summary).toContain("now at least 256 KiB");
      await new Promise((r) => setTimeout(r, 200)); // it grew; the size class did not change
      expect(JSON.stringify(await truncateLogFile.preview({ path }, ctx))).toBe(JSON.stringify(preview));
      const out = await truncateLogFile.apply({ path }, ctx, preview);
      expect(out.freed_bytes).toBeGreaterThanOrEqual(300_000);
      expect(statSync(path).size).toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 200));
      expect(statSync(path).size).toBeGreaterThan(0); // the writer's descriptor still works (O_APPEND)
    } finally {
      writer.kill("SIGKILL");
    }
  });

  it("refuses, as the model's input error, paths outside /var/log, `..`, relative paths, /var/log itself and journal files (M031, M034)", async () => {
    for (const path of ["/etc/passwd", "/var/log-archive/x.log", `${dir}/../../../etc/shadow`, "var/log/syslog", "/var/log", "/var/log/journal/abc/system.journal", `${dir}//x`]) {
      expect(await errorCode(() => deleteLogFile.preview({ path }, ctx)), path).toBe("forbidden_path");
      expect(await errorCode(() => truncateLogFile.preview({ path }, ctx)), path).toBe("forbidden_path");
    }
  });

  it("a symlink under /var/log to a file elsewhere is blocked for the approver, applies nothing, and the target survives (M033)", async () => {
    const outside = mkdtempSync(join(tmpdir(), "hg-remedy-"));
    try {
      writeFileSync(join(outside, "precious"), "keep me");
      const link = `${dir}/link.log.1`;
      symlinkSync(join(outside, "precious"), link);
      for (const action of [deleteLogFile, truncateLogFile]) {
        const preview = await action.preview({ path: link }, ctx);
        expect(blockedOf(preview)).toContain("symlink");
        expect(JSON.stringify(agentPreview(preview))).not.toMatch(/symlink|CANNOT/); // the model is told the same as for any file
        expect(await errorCode(() => action.apply({ path: link }, ctx, preview))).toBe("precondition_failed");
      }
      expect(statSync(join(outside, "precious")).size).toBe(7);
      expect(existsSync(link)).toBe(true);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("a directory on the path that is a symlink is blocked too (no link anywhere in the path)", async () => {
    const outside = mkdtempSync(join(tmpdir(), "hg-remedy-dir-"));
    try {
      writeFileSync(join(outside, "x.log.1"), "keep");
      symlinkSync(outside, `${dir}/linkdir`);
      const preview = await deleteLogFile.preview({ path: `${dir}/linkdir/x.log.1` }, ctx);
      expect(blockedOf(preview)).toContain("goes through a symlink");
      expect(existsSync(join(outside, "x.log.1"))).toBe(true);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("a hard-linked file, a directory, a missing file and hostgate's own paths are blocked", async () => {
    writeFileSync(`${dir}/hard.log.1`, "h");
    linkSync(`${dir}/hard.log.1`, `${dir}/hard-other.log.1`);
    mkdirSync(`${dir}/sub.1`);
    mkdirSync(`${dir}/state`);
    writeFileSync(`${dir}/state/audit.db`, "db");
    const own = await realContext({ protected_paths: [`${dir}/state`] });
    expect(blockedOf(await deleteLogFile.preview({ path: `${dir}/hard.log.1` }, ctx))).toContain("2 hard links");
    expect(blockedOf(await deleteLogFile.preview({ path: `${dir}/sub.1` }, ctx))).toContain("not a regular file");
    expect(blockedOf(await deleteLogFile.preview({ path: `${dir}/absent.log.1` }, ctx))).toContain("does not exist");
    expect(blockedOf(await truncateLogFile.preview({ path: `${dir}/state/audit.db` }, own))).toContain("one of hostgate's own paths");
    expect(statSync(`${dir}/state/audit.db`).size).toBe(2);
  });

  it("a file swapped under the approved name after approval (log rotation) is not touched: precondition_failed, both files kept", async () => {
    const path = `${dir}/rot.log`;
    writeFileSync(path, "old content\n");
    const del = await deleteLogFile.preview({ path }, ctx);
    const trunc = await truncateLogFile.preview({ path }, ctx);
    renameSync(path, `${path}.1`);
    writeFileSync(path, "new content\n");
    expect(await errorCode(() => deleteLogFile.apply({ path }, ctx, del))).toBe("precondition_failed");
    expect(await errorCode(() => truncateLogFile.apply({ path }, ctx, trunc))).toBe("precondition_failed");
    expect(statSync(path).size).toBe(12);
    expect(statSync(`${path}.1`).size).toBe(12);
    expect(readdirSync(dir).filter((n) => n.includes("hostgate-rm"))).toEqual([]); // the aside name was put back
  });
});

describe("VacuumJournal input and prediction", () => {
  it("needs max_size or max_age, with a clear error; values that could be options are refused by the schema", async () => {
    expect(await errorCode(() => vacuumJournal.preview({}, ctx))).toBe("invalid_params");
    expect(vacuumJournal.params.safeParse({ max_size: "--rotate" }).success).toBe(false);
    expect(vacuumJournal.params.safeParse({ max_age: "1d --directory=/" }).success).toBe(false);
    expect(vacuumJournal.params.safeParse({ max_size: "500M", max_age: "2weeks" }).success).toBe(true);
  });

  it("predicts removal per directory, oldest archived first, active files kept, until the directory fits", () => {
    const f = (dir: string, order: string, bytes: number, archived = true): Parameters<typeof filesOverSize>[0][number] => ({ path: `${dir}/${order}`, dir, bytes, archived, order });
    const files = [f("/a", "1", 100), f("/a", "2", 100), f("/a", "3", 100), f("/a", "z", 100, false), f("/b", "1", 50)];
    expect(filesOverSize(files, 250).map((x) => x.path)).toEqual(["/a/1", "/a/2"]);
    expect(filesOverSize(files, 10).map((x) => x.path)).toEqual(["/a/1", "/a/2", "/a/3", "/b/1"]);
    expect(filesOverSize(files, 1000)).toEqual([]);
  });
});

describe("GetLargestDirectories on a real tree", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "hg-du-"));
    for (const [d, n] of [["big", 400_000], ["mid", 100_000], ["small", 10_000]] as const) {
      mkdirSync(join(root, d, "inner"), { recursive: true });
      writeFileSync(join(root, d, "inner", "f"), Buffer.alloc(n, 1));
    }
  });
  afterAll(() => { rmSync(root, { recursive: true, force: true }); });

  it("lists the biggest directories first at depth 1, with the total, complete", async () => {
    const r = await getLargestDirectories.run({ path: root, depth: 1 }, ctx);
    expect(r.directories.map((d) => d.path)).toEqual([join(root, "big"), join(root, "mid"), join(root, "small")]);
    expect(r.directories[0]!.bytes).toBeGreaterThanOrEqual(400_000);
    expect(r.total_bytes).toBeGreaterThanOrEqual(510_000);
    expect(r.complete).toBe(true);
    expect(r.note).toBeNull();
  });

  it("depth 2 includes the inner directories, biggest first; a trailing slash is the same path", async () => {
    const r = await getLargestDirectories.run({ path: `${root}/`, depth: 2 }, ctx);
    expect(r.directories.map((d) => d.path).slice(0, 3)).toEqual([join(root, "big"), join(root, "big", "inner"), join(root, "mid")]);
    expect(r.directories).toHaveLength(6);
  });

  it("refuses a relative or unnormalised path, a file and a symlink, saying what to pass", async () => {
    symlinkSync(join(root, "big"), join(root, "link"));
    for (const path of ["var", `${root}/../etc`, `/${"a".repeat(1100)}`, join(root, "big", "inner", "f"), join(root, "link")]) {
      expect(await errorCode(() => getLargestDirectories.run({ path, depth: 1 }, ctx)), path).toBe("invalid_params");
    }
    expect(getLargestDirectories.params.safeParse({ depth: 4 }).success).toBe(false);
    expect(getLargestDirectories.params.safeParse({ limit: 5 }).success).toBe(false);
  });
});
