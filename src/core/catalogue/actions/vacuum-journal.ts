import { z } from "zod";
import { defineMutatingAction, type ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { humanBytes } from "./log-target.ts";
import { filesOverSize, listJournalFiles, parseJournalSize } from "./journal-files.ts";

/** Longest a vacuum may run, in milliseconds. */
const VACUUM_TIMEOUT_MS = 5 * 60_000;

const params = z.object({
  max_size: z.string().regex(/^[1-9][0-9]{0,5}[KMG]$/, "a size such as 500M or 2G").optional()
    .describe("Remove the oldest archived journal files until the journal takes at most this much, e.g. 500M"),
  max_age: z.string().regex(/^[1-9][0-9]{0,5}(s|min|h|d|weeks|months|years)$/, "an age such as 2weeks, 30d or 12h").optional()
    .describe("Remove archived journal files holding only entries older than this, e.g. 2weeks"),
}).strict();

/** journalctl's argv for these params (the values are validated by the schema: no option can be smuggled). */
function argvOf(p: z.infer<typeof params>): string[] {
  const argv: string[] = [];
  if (p.max_size !== undefined) argv.push(`--vacuum-size=${p.max_size}`);
  if (p.max_age !== undefined) argv.push(`--vacuum-time=${p.max_age}`);
  return argv;
}

async function journalctl(ctx: ActionContext): Promise<string> {
  const path = await ctx.host.which("journalctl");
  if (!path) throw new HostgateError("unavailable", "journalctl is not installed on this host, so there is no systemd journal to vacuum.", { hint: "Free space under /var/log with DeleteLogFile or TruncateLogFile instead." });
  return path;
}

/**
 * VacuumJournal: `journalctl --vacuum-size=` / `--vacuum-time=`, which removes archived journal files only (the
 * active ones stay). The preview lists every journal file with its size and, for a size limit, the files
 * journalctl will remove (computed as journal-vacuum.c does); for an age limit, the archived files it may remove.
 * Issue 22 (the disk-full runbook's first remedy).
 */
export default defineMutatingAction({
  name: "VacuumJournal",
  title: "Vacuum the systemd journal",
  description: "Remove old archived journal files with journalctl --vacuum-size and/or --vacuum-time (give max_size, max_age or both). Active journal files are kept. The approver sees every journal file and the ones that go.",
  params,
  output: z.object({ removed: z.array(z.string()), freed_bytes: z.number(), usage_before_bytes: z.number(), usage_after_bytes: z.number() }),
  risk_level: "medium",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["logs"],
  host_derived: true,
  async preview(p, ctx) {
    if (p.max_size === undefined && p.max_age === undefined) {
      throw new HostgateError("invalid_params", "VacuumJournal needs max_size, max_age or both.", { hint: "e.g. params: { max_size: \"500M\" } or { max_age: \"2weeks\" }." });
    }
    await journalctl(ctx);
    const files = await listJournalFiles(ctx);
    if (files.length === 0) {
      throw new HostgateError("not_found", "This host has no journal files (nothing under /var/log/journal or /run/log/journal): there is nothing to vacuum.", { hint: "Free space under /var/log with DeleteLogFile or TruncateLogFile, or look elsewhere with get_largest_directories." });
    }
    const usage = files.reduce((n, f) => n + f.bytes, 0);
    const bySize = p.max_size === undefined ? [] : filesOverSize(files, parseJournalSize(p.max_size));
    const archived = files.filter((f) => f.archived);
    const command = `journalctl ${argvOf(p).join(" ")}`;
    const predicted = bySize.reduce((n, f) => n + f.bytes, 0);
    const summary = p.max_size !== undefined && p.max_age === undefined
      ? `Vacuum the journal to ${p.max_size}: remove ${bySize.length} archived file(s), ${humanBytes(predicted)} of ${humanBytes(usage)}`
      : `Vacuum the journal (${[p.max_size && `max ${p.max_size}`, p.max_age && `older than ${p.max_age}`].filter(Boolean).join(", ")}): up to ${archived.length} archived file(s) of ${humanBytes(usage)}`;
    const goes = new Set(bySize.map((f) => f.path));
    const text = [
      summary,
      `will run: ${command}`,
      "",
      ...files.map((f) => `${goes.has(f.path) ? "REMOVE " : f.archived ? "archived " : "active  "} ${humanBytes(f.bytes).padStart(9)}  ${f.path}`),
    ].join("\n");
    return { summary, text: `${text}\n`, current: { usage_bytes: usage, files: files.map((f) => ({ path: f.path, bytes: f.bytes, archived: f.archived })) }, intended: { command, remove_by_size: bySize.map((f) => f.path) } };
  },
  async apply(p, ctx) {
    const path = await journalctl(ctx);
    const before = await listJournalFiles(ctx);
    const r = await ctx.mutator.run([path, ...argvOf(p)], { timeoutMs: VACUUM_TIMEOUT_MS });
    const details = { exit_code: r.exit_code, signal: r.signal, stderr_tail: r.stderr.slice(-4000) };
    if (r.timed_out) throw new HostgateError("timeout", `journalctl did not finish vacuuming within ${VACUUM_TIMEOUT_MS / 60_000} minutes.`, { details });
    if (r.exit_code !== 0) throw new HostgateError("action_failed", `journalctl ${argvOf(p).join(" ")} failed (exit ${r.exit_code ?? r.signal}): ${r.stderr.trim().split("\n").pop() ?? ""}`, { details });
    const after = await listJournalFiles(ctx);
    const left = new Set(after.map((f) => f.path));
    const removed = before.filter((f) => !left.has(f.path));
    const sum = (fs: typeof before): number => fs.reduce((n, f) => n + f.bytes, 0);
    return { removed: removed.map((f) => f.path), freed_bytes: sum(removed), usage_before_bytes: sum(before), usage_after_bytes: sum(after) };
  },
});
