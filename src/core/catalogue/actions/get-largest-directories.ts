import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { isWithinRoot } from "../../paths.ts";

/** Most bytes of du output read (a depth-3 walk of a large tree lists many directories). */
const MAX_OUTPUT = 8 * 1024 * 1024;

/** Most directories returned, biggest first. */
export const LIMIT = 20;
/** Seconds du may run before it is killed (what it finished is returned, `complete: false`). */
export const BUDGET_S = 15;

/** One `du -k` line: kibibytes, a tab, the path. */
const LINE = /^(\d+)\t(\/.*)$/;

/**
 * The directories du printed, biggest first, without `root` itself; `total` is root's own line (null when du
 * stopped before it). Lines that do not parse (a name holding a newline, a line cut by the cap) are skipped.
 */
export function parseDu(stdout: string, root: string): { total: number | null; dirs: { path: string; bytes: number }[] } {
  let total: number | null = null;
  const dirs: { path: string; bytes: number }[] = [];
  for (const line of stdout.split("\n")) {
    const m = LINE.exec(line);
    if (!m) continue;
    const bytes = Number(m[1]) * 1024;
    if (m[2] === root) total = bytes;
    else if (isWithinRoot(m[2]!, root)) dirs.push({ path: m[2]!, bytes });
  }
  dirs.sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : 1));
  return { total, dirs };
}

/**
 * GetLargestDirectories: `du -x -k -d <depth>` under one path, on its filesystem only, within a time budget
 * (du is killed when it runs out; what it finished is returned with `complete: false`). Read-only: du reads
 * directory metadata, never file content. Issue 22 (the disk-full runbook's "find what grew").
 */
export default defineReadOnlyAction({
  name: "GetLargestDirectories",
  title: "Largest directories",
  description: "Biggest directories under a path, like du -x.",
  // Two parameters only: every byte of a direct tool's schema is read by the model on every tools/list (issue 14's
  // 12 KiB budget). The entry count and the time budget are fixed (LIMIT, BUDGET_S); the path cap is checked in run.
  // `path` has no default: a walk of / is the slowest call there is, so the model names the mount get_disk_usage showed.
  params: z.object({
    path: z.string(),
    depth: z.number().int().min(1).max(3).default(1),
  }).strict(),
  output: z.object({
    path: z.string(),
    total_bytes: z.number().nullable(),
    directories: z.array(z.object({ path: z.string(), bytes: z.number() })),
    complete: z.boolean(),
    note: z.string().nullable(),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["host"],
  host_derived: true,
  async run(p, ctx) {
    if (p.path.length > 1024) throw new HostgateError("invalid_params", "path is longer than 1024 characters.", { hint: "Pass a shorter absolute path." });
    const path = p.path.length > 1 ? p.path.replace(/\/+$/, "") : p.path;
    if (!path.startsWith("/") || path.split("/").some((s, i) => (s === "" && i > 0 && path !== "/") || s === "." || s === "..")) {
      throw new HostgateError("invalid_params", `path ${JSON.stringify(p.path)} must be absolute and normalised (no . or .. segments).`, { hint: "e.g. path: \"/var\"" });
    }
    const st = await ctx.host.stat(path);
    if (!st.is_directory) throw new HostgateError("invalid_params", `${path} is not a directory${st.is_symlink ? " (it is a symlink; pass its target)" : ""}.`, { hint: "Pass a directory, e.g. the mount point get_disk_usage shows full." });
    const du = await ctx.host.which("du");
    if (!du) throw new HostgateError("unavailable", "du is not installed on this host.");
    const r = await ctx.host.run([du, "-x", "-k", "-d", String(p.depth), "--", path], { timeoutMs: BUDGET_S * 1000, maxOutputBytes: MAX_OUTPUT });
    const { total, dirs } = parseDu(r.stdout, path);
    const unreadable = r.stderr.split("\n").filter((l) => /Permission denied|cannot (read|access)/.test(l)).length;
    const notes: string[] = [];
    if (r.timed_out) notes.push(`du ran out of its ${BUDGET_S} s budget: directories it had not finished are missing and the total is unknown; pass a deeper path or a smaller depth`);
    if (r.truncated) notes.push("du's output was cut at 8 MiB; use a smaller depth");
    if (unreadable > 0) notes.push(`${unreadable} director${unreadable === 1 ? "y was" : "ies were"} unreadable to the daemon and counted as empty`);
    return { path, total_bytes: r.timed_out ? null : total, directories: dirs.slice(0, LIMIT), complete: !r.timed_out && !r.truncated && unreadable === 0, note: notes.length > 0 ? notes.join("; ") : null };
  },
});
