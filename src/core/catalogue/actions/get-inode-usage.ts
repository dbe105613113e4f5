import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { parseMountinfo, PSEUDO_FS_TYPES, visibleMounts } from "../../host/mountinfo.ts";

const row = z.object({
  mount_point: z.string(),
  source: z.string(),
  fs_type: z.string(),
  inodes_total: z.number(),
  inodes_used: z.number(),
  inodes_free: z.number(),
  /** df -i's IUse%: used / total, rounded up; null when the file system has no inode count (btrfs, vfat). */
  use_percent: z.number().nullable(),
});

/** GetInodeUsage: inode use per file system from statfs(2), fullest first (df -i's figures). */
export default defineReadOnlyAction({
  name: "GetInodeUsage",
  title: "Inode usage",
  description: "Inodes used and free per file system (statfs), fullest first: for \"No space left\" with free blocks.",
  params: z.object({ min_percent: z.number().min(0).max(100).default(0).describe("only file systems at least this full") }).strict(),
  output: z.object({ filesystems: z.array(row) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["storage"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const out: z.infer<typeof row>[] = [];
    for (const m of visibleMounts(parseMountinfo(await ctx.host.readText("/proc/self/mountinfo")))) {
      if (PSEUDO_FS_TYPES.has(m.fs_type)) continue;
      const s = await ctx.host.statFs(m.mount_point).catch(() => null);
      if (!s || (s.files === 0 && s.blocks === 0)) continue;
      const used = s.files - s.files_free;
      const pct = s.files === 0 ? null : Math.ceil((used * 100) / s.files);
      if ((pct ?? 0) < params.min_percent) continue;
      out.push({ mount_point: m.mount_point, source: m.source, fs_type: m.fs_type, inodes_total: s.files, inodes_used: used, inodes_free: s.files_free, use_percent: pct });
    }
    out.sort((a, b) => (b.use_percent ?? -1) - (a.use_percent ?? -1) || a.mount_point.localeCompare(b.mount_point));
    return { filesystems: out };
  },
});
