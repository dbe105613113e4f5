import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";

/** Most directory entries examined in one call. */
const MAX_ENTRIES = 200_000;

/**
 * Largest `budget_ms` (ms). The daemon ends any query after 20 s (app/query.ts QUERY_TIMEOUT_MS, `timeout`, no
 * answer): the walk's budget stays well under it so the last stat, the sort and the answer fit, and a walk that runs
 * out of budget answers what it found with a note instead of failing. Tested against QUERY_TIMEOUT_MS.
 */
export const MAX_BUDGET_MS = 15_000;

/**
 * FindLargeFiles: the biggest regular files under a directory, found by walking it with lstat (symlinks are
 * never followed, other file systems are not entered), within a time budget and an entry cap; what was not
 * reached is said in `complete`/`note`. Reads metadata only, never file content.
 */
export default defineReadOnlyAction({
  name: "FindLargeFiles",
  title: "Large files",
  description: "Biggest files under a directory (no symlinks followed, one file system), within a time budget.",
  params: z.object({
    path: z.string().min(1).max(1024),
    min_bytes: z.number().int().min(0).default(1024 * 1024),
    limit: z.number().int().min(1).max(200).default(20),
    budget_ms: z.number().int().min(100).max(MAX_BUDGET_MS).default(5000).describe("Time budget of the walk in ms (max 15000); when it runs out the files found so far are answered with a note"),
  }).strict(),
  output: z.object({
    path: z.string(),
    files: z.array(z.object({ path: z.string(), bytes: z.number(), modified: z.string() })),
    examined: z.number(),
    complete: z.boolean(),
    note: z.string().nullable(),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["storage"],
  host_derived: true,
  needs: ["files"],
  async run(p, ctx) {
    const root = p.path.length > 1 ? p.path.replace(/\/+$/, "") : p.path;
    if (!root.startsWith("/") || root.split("/").some((s, i) => (s === "" && i > 0 && root !== "/") || s === "." || s === "..")) {
      throw new HostgateError("invalid_params", `path ${JSON.stringify(p.path)} must be absolute and normalised (no . or .. segments).`, { hint: "e.g. path: \"/var/log\"" });
    }
    const top = await ctx.host.stat(root);
    if (!top.is_directory) throw new HostgateError("invalid_params", `${root} is not a directory${top.is_symlink ? " (it is a symlink; pass its target)" : ""}.`, { hint: "Pass a directory, e.g. a mount point get_disk_usage shows full." });
    const deadline = ctx.clock.now() + p.budget_ms;
    const found: { path: string; bytes: number; mtime: number }[] = [];
    const stack = [root];
    let examined = 0;
    let unreadable = 0;
    let small = 0;
    let stopped: string | null = null;
    while (stack.length > 0) {
      if (ctx.clock.now() > deadline) { stopped = `the ${p.budget_ms} ms budget ran out`; break; }
      if (examined >= MAX_ENTRIES) { stopped = `${MAX_ENTRIES} entries were examined`; break; }
      const dir = stack.pop()!;
      let names: string[];
      try {
        names = await ctx.host.readDir(dir);
      } catch {
        unreadable++;
        continue;
      }
      for (const name of names) {
        if (ctx.clock.now() > deadline) { stopped = `the ${p.budget_ms} ms budget ran out`; stack.length = 0; break; }
        examined++;
        const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
        const st = await ctx.host.stat(path).catch(() => null);
        if (!st || st.is_symlink) continue;
        if (st.is_directory) {
          if (top.dev === undefined || st.dev === top.dev) stack.push(path); // -xdev: stay on the file system
        } else if (st.is_file && st.size >= p.min_bytes) {
          found.push({ path, bytes: st.size, mtime: st.mtime_ms });
          if (found.length > p.limit * 4) { found.sort((a, b) => b.bytes - a.bytes); found.length = p.limit; }
        } else if (st.is_file) small++;
      }
    }
    found.sort((a, b) => b.bytes - a.bytes || a.path.localeCompare(b.path));
    const larger = p.budget_ms < MAX_BUDGET_MS ? `a deeper path or a larger budget_ms (up to ${MAX_BUDGET_MS})` : `a deeper path (budget_ms is at its ${MAX_BUDGET_MS} maximum)`;
    const notes = [
      stopped ? `stopped early: ${stopped}; the files found so far are listed; pass ${larger}` : null,
      unreadable > 0 ? `${unreadable} director${unreadable === 1 ? "y was" : "ies were"} unreadable` : null,
      small > 0 && found.length < p.limit ? `${small} file${small === 1 ? " is" : "s are"} under min_bytes (${p.min_bytes} bytes) and not listed; pass a smaller min_bytes (0 lists every file) to see them` : null,
    ].filter((n) => n !== null);
    return {
      path: root,
      files: found.slice(0, p.limit).map((f) => ({ path: f.path, bytes: f.bytes, modified: new Date(f.mtime).toISOString() })),
      examined,
      complete: stopped === null && unreadable === 0,
      note: notes.length > 0 ? notes.join("; ") : null,
    };
  },
});
