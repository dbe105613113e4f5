import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { parseMountinfo, PSEUDO_FS_TYPES } from "../../host/mountinfo.ts";
import { paginate } from "../../pagination.ts";

const mount = z.object({
  mount_point: z.string(),
  source: z.string(),
  fs_type: z.string(),
  /** Per-mount options (ro/rw, nosuid, nodev, noexec, relatime…). */
  options: z.array(z.string()),
  /** The file system's own options (size=, errors=, subvol=…). */
  fs_options: z.array(z.string()),
  /** The subtree mounted ("/" unless a bind mount of a directory). */
  root: z.string(),
  read_only: z.boolean(),
});

/** ListMounts: every mount of the host with its options, from /proc/self/mountinfo (what `findmnt -l` lists). */
export default defineReadOnlyAction({
  name: "ListMounts",
  title: "Mounts",
  description: "Mounted file systems with mount and file-system options (/proc/self/mountinfo).",
  params: z.object({
    fs_type: z.string().max(64).optional(),
    under: z.string().max(1024).optional().describe("only mount points at or below this path"),
    include_pseudo: z.boolean().default(false).describe("also proc, sysfs, cgroup…"),
    limit: z.number().int().min(1).max(1000).default(200),
    cursor: z.string().max(256).optional(),
  }).strict(),
  output: z.object({ mounts: z.array(mount), total: z.number(), next_cursor: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["storage"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const under = params.under?.replace(/\/+$/, "") ?? "";
    const rows = parseMountinfo(await ctx.host.readText("/proc/self/mountinfo"))
      .filter((m) => params.include_pseudo || params.fs_type === m.fs_type || !PSEUDO_FS_TYPES.has(m.fs_type))
      .filter((m) => params.fs_type === undefined || m.fs_type === params.fs_type)
      .filter((m) => under === "" || m.mount_point === under || m.mount_point.startsWith(`${under}/`))
      .map((m) => {
        const options = m.options.split(",");
        return { mount_point: m.mount_point, source: m.source, fs_type: m.fs_type, options, fs_options: m.super_options.split(",").filter((o) => o !== ""), root: m.root, read_only: options.includes("ro") };
      });
    const page = paginate(rows, params.limit, params.cursor, `mounts:${params.fs_type ?? ""}:${under}:${params.include_pseudo}`);
    return { mounts: page.items, total: page.total, next_cursor: page.next_cursor };
  },
});
