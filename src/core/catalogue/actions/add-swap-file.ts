import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { activeSwaps, FSTAB, fsRefusal, fstabDiff, fstabLine, fsTypeOf, readFstab, refuseUnsafeSwapDir, swapPath } from "./swap-common.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned, type PlannedChange } from "./planned-change.ts";

const params = z.object({
  path: swapPath.describe("Absolute path of the new swap file, e.g. /swapfile"),
  size_mib: z.number().int().min(16).max(1024 * 1024).describe("Size in MiB (16 to 1048576)"),
}).strict();
type Params = z.infer<typeof params>;

/** Free space a swap file must leave on its file system, as a share of the file system's size. */
const KEEP_FREE = 0.05;

async function plan(p: Params, ctx: ActionContext): Promise<PlannedChange & { fstab?: { sha256: string; next: string } }> {
  const dir = p.path.slice(0, p.path.lastIndexOf("/")) || "/";
  let realDir: string;
  try {
    realDir = await ctx.host.realPath(dir);
  } catch (err) {
    if (err instanceof HostgateError && err.code === "not_found") throw new HostgateError("invalid_params", `${dir} does not exist; AddSwapFile does not create directories.`, { hint: "Pick a path in an existing directory, e.g. /swapfile." });
    throw err;
  }
  if (realDir !== dir) throw new HostgateError("invalid_params", `${dir} resolves to ${realDir} through a symbolic link; name the real path.`, { hint: `Use ${realDir}/${p.path.slice(dir.length + 1)}.` });
  const fs = await fsTypeOf(ctx, realDir);
  const why = fsRefusal(fs.fs_type);
  if (why !== null) throw new HostgateError("invalid_params", `${p.path} would be on ${fs.fs_type} (${fs.mount_point}): ${why}.`, { hint: "Pick a path on an ext4 or xfs file system (read_action { action: \"ListMounts\" } shows them)." });
  await refuseUnsafeSwapDir(ctx, p.path, realDir);
  const swaps = await activeSwaps(ctx);
  const fstab = await readFstab(ctx, p.path);
  const exists = await ctx.host.stat(p.path).then((st) => st, (err: unknown) => {
    if (err instanceof HostgateError && err.code === "not_found") return null;
    throw err;
  });
  const active = swaps.some((s) => s.path === p.path);
  const current = { exists: exists !== null, active, in_fstab: fstab.lines.length > 0, fs_type: fs.fs_type, mount_point: fs.mount_point };
  const intended = { exists: true, active: true, in_fstab: true, size_mib: p.size_mib };
  if (exists !== null && active && fstab.lines.length > 0) {
    return { summary: `Add swap file ${p.path}: nothing to do (active and in ${FSTAB})`, current, intended, steps: [] };
  }
  if (exists !== null) throw new HostgateError("invalid_params", `${p.path} already exists${active ? " and is active swap" : ""}; AddSwapFile never reuses or overwrites a file.`, { hint: "Pick a new path, or RemoveSwapFile it first." });
  if (fstab.lines.length > 0) throw new HostgateError("invalid_params", `${FSTAB} already names ${p.path} as swap, but the file does not exist.`, { hint: `Fix ${FSTAB} at the console, or RemoveSwapFile ${p.path} to drop the line.` });
  const st = await ctx.host.statFs(realDir);
  const bytes = p.size_mib * 1024 * 1024;
  const free = st.blocks_available * st.block_size;
  const keep = st.blocks * st.block_size * KEEP_FREE;
  if (bytes > free - keep) throw new HostgateError("invalid_params", `${p.size_mib} MiB does not fit on ${fs.mount_point}: ${Math.floor(free / 1048576)} MiB free, and ${Math.ceil(keep / 1048576)} MiB (5%) must stay free.`, { hint: "Ask for less, or free space first." });
  const next = `${fstab.text}${fstab.text === "" || fstab.text.endsWith("\n") ? "" : "\n"}${fstabLine(p.path)}\n`;
  return {
    summary: `Add a ${p.size_mib} MiB swap file ${p.path} on ${fs.mount_point} (${fs.fs_type}), active now and at boot`,
    current, intended,
    creates: [{ path: p.path, bytes, mode: 0o600 }],
    steps: [["mkswap", p.path], ["swapon", p.path]],
    detail: `then write ${FSTAB}:\n${fstabDiff(fstab.text, next)}`,
    fstab: { sha256: fstab.sha256, next },
  };
}

/**
 * AddSwapFile: create the file (HostMutator.createRootFile: O_EXCL | O_NOFOLLOW, mode 0600 and fallocate(2) on its
 * descriptor), mkswap, swapon, and a line in /etc/fstab written atomically with the fstab the preview saw as
 * precondition. mkswap and swapon take the path, so the file must live where only root can change names: every
 * directory from `/` down is owned by root and not writable by group or other (refuseUnsafeSwapDir, at plan and at
 * execute; createRootFile checks it again on held descriptors). With that chain, a user cannot swap the new file
 * for a link between its creation and swapon (issue 24's trial): no one but root may rename or create a name in
 * any of those directories. Refuses an existing path, a directory reached through a link, hostgate's own
 * directories, file systems that cannot hold a swap file this way (tmpfs, ramfs, btrfs, network and overlay file systems), and a
 * size that would leave less than 5% of the file system free.
 */
export default defineMutatingAction({
  name: "AddSwapFile",
  title: "Add a swap file",
  description: "Create a swap file (allocated, mode 0600, mkswap), turn it on (swapon) and add it to /etc/fstab. The plan shows the fstab diff. Refuses existing files, directories someone other than root can change (homes, /tmp), and tmpfs, btrfs, overlay or network file systems.",
  params,
  output: plannedApplyOutput,
  risk_level: "medium",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["storage"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx): Promise<Preview> => renderPlanned(await plan(p, ctx)),
  async apply(p, ctx) {
    const c = await plan(p, ctx);
    const out = await applyPlanned(ctx, c, 10 * 60_000);
    if (c.fstab) await ctx.mutator.writeFileAtomic(FSTAB, c.fstab.next, { expectedSha256: c.fstab.sha256 });
    return out;
  },
});
