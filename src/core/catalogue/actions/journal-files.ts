import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";

/** Where journald keeps its files: persistent, then volatile (systemd-journald.service(8)). */
export const JOURNAL_ROOTS = ["/var/log/journal", "/run/log/journal"] as const;

/**
 * One journal file: its path, the space it takes on disk (st_blocks × 512, what journalctl counts), whether it
 * is archived (only archived files are ever vacuumed), and for archived files the head realtime from its name,
 * the order journalctl removes them in (oldest first).
 */
export interface JournalFile {
  path: string;
  dir: string;
  bytes: number;
  archived: boolean;
  order: string;
}

/** `system@<seqnum id>-<head seqnum>-<head realtime>.journal`: the realtime in hex, as journald names archived files. */
const ARCHIVED = /^[^@]+@[0-9a-f]{32}-[0-9a-f]{16}-([0-9a-f]{16})\.journal$/;

/**
 * Every journal file under {@link JOURNAL_ROOTS} (one directory level: `<machine-id>[.<namespace>]/`), sorted by
 * directory then removal order. Missing roots are skipped; anything else the probe throws is passed on.
 */
export async function listJournalFiles(ctx: Pick<ActionContext, "host">): Promise<JournalFile[]> {
  const out: JournalFile[] = [];
  for (const root of JOURNAL_ROOTS) {
    let dirs: string[];
    try {
      dirs = await ctx.host.readDir(root);
    } catch (err) {
      if (err instanceof HostgateError && err.code === "not_found") continue;
      throw err;
    }
    for (const d of dirs.sort()) {
      const dir = `${root}/${d}`;
      const st = await ctx.host.stat(dir);
      if (!st.is_directory) continue;
      for (const name of (await ctx.host.readDir(dir)).sort()) {
        if (!name.endsWith(".journal") && !name.endsWith(".journal~")) continue;
        const f = await ctx.host.stat(`${dir}/${name}`);
        if (!f.is_file) continue;
        const m = ARCHIVED.exec(name);
        const archived = m !== null || name.endsWith(".journal~");
        out.push({ path: `${dir}/${name}`, dir, bytes: f.blocks_bytes ?? f.size, archived, order: m?.[1] ?? `~${Math.floor(f.mtime_ms).toString(16).padStart(16, "0")}` });
      }
    }
  }
  return out.sort((a, b) => (a.dir === b.dir ? (a.order < b.order ? -1 : a.order > b.order ? 1 : 0) : a.dir < b.dir ? -1 : 1));
}

/** `500M` → bytes (journalctl's K/M/G are powers of 1024). */
export function parseJournalSize(text: string): number {
  const m = /^([1-9][0-9]*)([KMG])$/.exec(text);
  if (!m) throw new HostgateError("invalid_params", `max_size ${JSON.stringify(text)} is not a size such as 500M.`);
  return Number(m[1]) * 1024 ** (m[2] === "K" ? 1 : m[2] === "M" ? 2 : 3);
}

/**
 * The archived files `journalctl --vacuum-size=<max>` removes: per journal directory, the oldest archived files
 * while the directory's total (active files included) is above `max` (systemd journal-vacuum.c). A prediction
 * shown to the approver; apply reports what journalctl actually removed.
 */
export function filesOverSize(files: readonly JournalFile[], max: number): JournalFile[] {
  const out: JournalFile[] = [];
  const dirs = [...new Set(files.map((f) => f.dir))];
  for (const dir of dirs) {
    const here = files.filter((f) => f.dir === dir);
    let total = here.reduce((n, f) => n + f.bytes, 0);
    for (const f of here.filter((x) => x.archived)) {
      if (total <= max) break;
      out.push(f);
      total -= f.bytes;
    }
  }
  return out;
}
