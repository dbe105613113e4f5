import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { JOURNAL_ROOTS, listJournalFiles } from "./journal-files.ts";

const dir = z.object({ directory: z.string(), bytes: z.number(), files: z.number(), archived_files: z.number(), archived_bytes: z.number() });

/**
 * GetJournalDiskUsage: the space journal files take on disk (st_blocks × 512, what `journalctl --disk-usage`
 * counts), per journal directory under /var/log/journal and /run/log/journal, from lstat alone: no tool.
 * `archived_bytes` is what vacuuming (VacuumJournal) can ever remove.
 */
export default defineReadOnlyAction({
  name: "GetJournalDiskUsage",
  title: "Journal disk usage",
  description: "Disk space of journal files per directory (archived = vacuumable). From the files; no tool.",
  params: z.object({}).strict(),
  output: z.object({ total_bytes: z.number(), directories: z.array(dir), roots: z.array(z.string()) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["logs"],
  host_derived: true,
  async run(_params, ctx) {
    const files = await listJournalFiles(ctx);
    const byDir = new Map<string, z.infer<typeof dir>>();
    for (const f of files) {
      const d = byDir.get(f.dir) ?? { directory: f.dir, bytes: 0, files: 0, archived_files: 0, archived_bytes: 0 };
      d.bytes += f.bytes;
      d.files++;
      if (f.archived) { d.archived_files++; d.archived_bytes += f.bytes; }
      byDir.set(f.dir, d);
    }
    const directories = [...byDir.values()];
    return { total_bytes: directories.reduce((n, d) => n + d.bytes, 0), directories, roots: [...JOURNAL_ROOTS] };
  },
});
