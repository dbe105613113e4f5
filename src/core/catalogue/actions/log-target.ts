import { z } from "zod";
import type { ActionContext, Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { isWithinRoot } from "../../paths.ts";
import { LOG_ROOT } from "./read-log-file.ts";

/** The journal's own directory under /var/log: its files are removed by VacuumJournal, never one by one. */
export const JOURNAL_DIR = "/var/log/journal";

/** The params of DeleteLogFile and TruncateLogFile: one absolute path under /var/log. */
export const logTargetParams = z.object({
  path: z.string().min(1).max(1024).describe("Absolute path of a regular file under /var/log, e.g. /var/log/syslog.2.gz"),
}).strict();

/**
 * The file as the preview saw it (approver only): where its directory resolves, its identity (dev + inode,
 * the precondition of apply), owner, mode, and its size (`size` exact for a delete; `size_at_least`, a power
 * of two, for a truncate, since a live log grows between plan and execute and an exact size would make every
 * execute `plan_changed`). `blocked`: why it cannot be applied (apply refuses).
 */
/** What DeleteLogFile and TruncateLogFile answer: the file, what was done to it, the bytes it held. */
export const logTargetOutput = z.object({ path: z.string(), how: z.enum(["delete", "truncate"]), freed_bytes: z.number() });

export const logTargetSchema = z.object({
  real_dir: z.string(),
  dev: z.number(),
  ino: z.number(),
  uid: z.number(),
  mode: z.string(),
  size: z.number().optional(),
  size_at_least: z.number().optional(),
  mtime: z.string().optional(),
  blocked: z.string().optional(),
});
export type LogTarget = z.infer<typeof logTargetSchema>;

/**
 * Lexical checks on the model's path (its own input, so errors are fine): absolute, normalised, under /var/log
 * and not the root itself, not in the journal's directory. Throws `forbidden_path` with what to pass instead.
 */
export function checkLogPath(path: string): void {
  const refuse = (why: string, hint = `Pass the absolute path of a regular file under ${LOG_ROOT}/, e.g. ${LOG_ROOT}/syslog.1.`): never => {
    throw new HostgateError("forbidden_path", `Refused ${JSON.stringify(path)}: ${why}.`, { hint });
  };
  if (!path.startsWith("/")) refuse("the path must be absolute");
  if (path.split("/").some((s, i) => (s === "" && i > 0) || s === "." || s === "..")) refuse("the path must be normalised (no `.`, `..` or empty segments)");
  if (!isWithinRoot(path, LOG_ROOT) || path === LOG_ROOT) refuse(`it is not a file under ${LOG_ROOT}`);
  if (isWithinRoot(path, JOURNAL_DIR)) refuse("journal files are not removed one by one", "Use the VacuumJournal action (plan { steps: [{ action: \"VacuumJournal\", params: { max_size: \"500M\" } }] }).");
}

/** Why an inspected file cannot be changed (approver only). */
class Blocked extends Error {}

/** Rounds a byte count down to a power of two (0 stays 0): a size class that a growing log keeps for a while. */
export function sizeClass(bytes: number): number {
  return bytes <= 0 ? 0 : 2 ** Math.floor(Math.log2(bytes));
}

/** `1536` → `"1.5 KiB"`: sizes for the approval screen. */
export function humanBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${n} B` : `${v.toFixed(1).replace(/\.0$/, "")} ${units[i]}`;
}

async function inspect(path: string, how: "delete" | "truncate", ctx: ActionContext): Promise<LogTarget> {
  let real: string;
  try {
    real = await ctx.host.realPath(path);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") throw new Blocked(`${path} does not exist`);
    throw err;
  }
  if (real !== path) throw new Blocked(`${path} goes through a symlink (it resolves to ${real}); hostgate does not follow links here`);
  for (const p of ctx.protected_paths) if (isWithinRoot(real, p)) throw new Blocked(`${path} is under ${p}, one of hostgate's own paths`);
  const st = await ctx.host.stat(path);
  if (!st.is_file) throw new Blocked(`${path} is not a regular file`);
  if (st.dev === undefined || st.ino === undefined || st.nlink === undefined || st.uid === undefined || st.mode === undefined) {
    throw new HostgateError("unavailable", "This host's file probe does not report inode identity; log files cannot be removed here.");
  }
  if (st.nlink !== 1) throw new Blocked(`${path} has ${st.nlink} hard links (removing one name frees nothing; another name may be outside ${LOG_ROOT})`);
  const dir = path.slice(0, path.lastIndexOf("/"));
  const base = { real_dir: dir, dev: st.dev, ino: st.ino, uid: st.uid, mode: st.mode.toString(8).padStart(4, "0") };
  return how === "delete"
    ? { ...base, size: st.size, mtime: new Date(Math.floor(st.mtime_ms / 1000) * 1000).toISOString() }
    : { ...base, size_at_least: sizeClass(st.size) };
}

/** A name with a rotation suffix (`.1`, `.gz`, `-20260101`…): logrotate's old copies, nobody writes them. */
export function looksRotated(path: string): boolean {
  return /(\.\d+|\.(gz|xz|bz2|zst|lz4|old))$|-\d{8}(\.(gz|xz|bz2|zst))?$/.test(path);
}

/**
 * The preview of DeleteLogFile / TruncateLogFile. Host-state problems (absent, a symlink, not a regular file,
 * hard-linked, hostgate's own file) do not fail the plan: they give a blocked preview whose reason the approver
 * alone sees, and apply refuses it; the model is told the same in every case (as WriteFile, red team issue 12:
 * a plan must not be a probe of paths the model cannot read).
 */
export async function logTargetPreview(path: string, how: "delete" | "truncate", ctx: ActionContext): Promise<Preview> {
  checkLogPath(path);
  let current: LogTarget;
  try {
    current = await inspect(path, how, ctx);
  } catch (err) {
    if (!(err instanceof Blocked)) throw err;
    current = { real_dir: "", dev: 0, ino: 0, uid: 0, mode: "", blocked: err.message };
  }
  const verb = how === "delete" ? "Delete" : "Truncate";
  const warnings: string[] = [];
  if (how === "delete" && current.blocked === undefined && !looksRotated(path)) {
    warnings.push(`${path} has no rotation suffix: it may be a live log. A process holding it open keeps the space until it reopens the file; TruncateLogFile frees it at once.`);
  }
  const summary = current.blocked !== undefined
    ? `CANNOT BE APPLIED: ${current.blocked}. Reject this step; execute would refuse it.`
    : how === "delete"
    ? `Delete ${path} (${humanBytes(current.size!)}, last written ${current.mtime})`
    : `Truncate ${path} to 0 bytes (now at least ${humanBytes(current.size_at_least!)}; a live log keeps growing, so the exact size is not part of the plan)`;
  const agentSummary = `${verb} ${path}`;
  return {
    summary,
    text: [summary, current.blocked === undefined ? `file: inode ${current.ino} on device ${current.dev}, owner uid ${current.uid}, mode ${current.mode}` : "", ...warnings.map((w) => `WARNING: ${w}`)].filter(Boolean).join("\n") + "\n",
    current,
    intended: { how },
    ...(warnings.length > 0 ? { warnings } : {}),
    agent: { summary: agentSummary, text: `${agentSummary}\nThe approver sees the file's size, owner and identity; execute refuses if it is another file by then.\n`, intended: { how } },
  };
}

/** The apply of DeleteLogFile / TruncateLogFile: the approved file, and only it, through the mutator. */
export async function applyLogTarget(path: string, how: "delete" | "truncate", ctx: ActionContext, approved: Preview): Promise<{ path: string; how: "delete" | "truncate"; freed_bytes: number }> {
  checkLogPath(path);
  const seen = logTargetSchema.safeParse(approved.current);
  if (!seen.success) throw new HostgateError("internal_error", "The log file action needs the approved preview's `current` file state.");
  if (seen.data.blocked !== undefined) {
    throw new HostgateError("precondition_failed", `${path} cannot be ${how === "delete" ? "deleted" : "truncated"}; the approver's preview says why. Nothing was changed.`, { hint: "Ask the user what the approval screen said, or pick another file." });
  }
  const r = await ctx.mutator.removeFile(path, { how, expectedRealDir: seen.data.real_dir, expectedDev: seen.data.dev, expectedIno: seen.data.ino });
  return { path, how, freed_bytes: r.size };
}
