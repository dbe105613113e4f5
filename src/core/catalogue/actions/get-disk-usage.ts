import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { parseMountinfo, PSEUDO_FS_TYPES, visibleMounts } from "../../host/mountinfo.ts";

const filesystem = z.object({
  source: z.string(),
  mount_point: z.string(),
  fs_type: z.string(),
  size_bytes: z.number(),
  used_bytes: z.number(),
  avail_bytes: z.number(),
  use_percent: z.number().nullable(),
  inodes_total: z.number(),
  inodes_used: z.number(),
  inodes_free: z.number(),
  inodes_use_percent: z.number().nullable(),
});

/**
 * df(1)'s percentage: used / (used + available), rounded up, so reserved blocks count as unavailable.
 * null when the file system reports no blocks.
 */
function percent(used: number, avail: number): number | null {
  const total = used + avail;
  return total === 0 ? null : Math.ceil((used * 100) / total);
}

/** GetDiskUsage: per-mount statfs(2) figures, the numbers `df -B1` and `df -i` print. */
export default defineReadOnlyAction({
  name: "GetDiskUsage",
  title: "Disk usage",
  description: "Space and inodes per mount.",
  params: z.object({
    mount_point: z.string().max(1024).optional(),
    include_pseudo: z.boolean().default(false),
  }).strict(),
  output: z.object({ filesystems: z.array(filesystem) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["host"],
  host_derived: true,
  async run(params, ctx) {
    const all = parseMountinfo(await ctx.host.readText("/proc/self/mountinfo"));
    // One row per file system, as df shows (over-mounted /dev/shm, bind mounts); a named mount point is always answered.
    const mounts = params.mount_point === undefined ? visibleMounts(all) : visibleMounts(all.filter((m) => m.mount_point === params.mount_point));
    const filesystems: z.infer<typeof filesystem>[] = [];
    for (const m of mounts) {
      if (params.mount_point !== undefined && m.mount_point !== params.mount_point) continue;
      if (!params.include_pseudo && PSEUDO_FS_TYPES.has(m.fs_type)) continue;
      let s;
      try {
        s = await ctx.host.statFs(m.mount_point);
      } catch {
        continue; // vanished or inaccessible mount: df(1) skips these too
      }
      if (!params.include_pseudo && s.blocks === 0) continue;
      const used = (s.blocks - s.blocks_free) * s.block_size;
      const avail = s.blocks_available * s.block_size;
      const inodesUsed = s.files - s.files_free;
      filesystems.push({
        source: m.source,
        mount_point: m.mount_point,
        fs_type: m.fs_type,
        size_bytes: s.blocks * s.block_size,
        used_bytes: used,
        avail_bytes: avail,
        use_percent: percent(used, avail),
        inodes_total: s.files,
        inodes_used: inodesUsed,
        inodes_free: s.files_free,
        inodes_use_percent: s.files === 0 ? null : Math.ceil((inodesUsed * 100) / s.files),
      });
    }
    return { filesystems };
  },
});
