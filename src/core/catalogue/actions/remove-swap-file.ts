import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { activeSwaps, FSTAB, fstabDiff, readFstab, refuseUnsafeSwapDir, swapPath } from "./swap-common.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned, type PlannedChange } from "./planned-change.ts";

const params = z.object({ path: swapPath.describe("Absolute path of the swap file, as /proc/swaps or /etc/fstab names it") }).strict();
type Params = z.infer<typeof params>;

/**
 * The file as the preview saw it: its directory with links resolved, and its identity (device + inode, stat(2)).
 * Part of the preview's `current`, so of the preview_hash: a different file at the path by execute (the path's
 * directory renamed and another swap file's moved in, a link swapped in) is `plan_changed`. Null when the file is
 * absent or the probe reports no inode.
 */
const fileIdentity = z.object({ real_dir: z.string(), dev: z.number(), ino: z.number() }).nullable();
type FileIdentity = z.infer<typeof fileIdentity>;

interface RemovePlan extends PlannedChange {
  fstab: { sha256: string; next: string } | null;
  file: FileIdentity;
}

async function plan(p: Params, ctx: ActionContext): Promise<RemovePlan> {
  const swaps = await activeSwaps(ctx);
  const active = swaps.find((s) => s.path === p.path);
  if (active && active.type !== "file") throw new HostgateError("invalid_params", `${p.path} is a swap ${active.type}, not a swap file.`, { hint: "RemoveSwapFile removes only swap files." });
  const fstab = await readFstab(ctx, p.path);
  const st = await ctx.host.stat(p.path).then((s) => s, (err: unknown) => {
    if (err instanceof HostgateError && err.code === "not_found") return null;
    throw err;
  });
  if (st !== null && (st.is_symlink || !st.is_file)) throw new HostgateError("invalid_params", `${p.path} is ${st.is_symlink ? "a symbolic link" : "not a regular file"}; nothing is removed.`);
  const dir = p.path.slice(0, p.path.lastIndexOf("/")) || "/";
  const file: FileIdentity = st !== null && st.dev !== undefined && st.ino !== undefined ? { real_dir: await ctx.host.realPath(dir), dev: st.dev, ino: st.ino } : null;
  const current = { exists: st !== null, active: active !== undefined, in_fstab: fstab.lines.length > 0, file };
  const intended = { exists: false, active: false, in_fstab: false };
  if (!active && fstab.lines.length === 0) {
    if (st === null) return { summary: `Remove swap file ${p.path}: nothing to do (not active, not in ${FSTAB}, absent)`, current, intended, steps: [], fstab: null, file: null };
    throw new HostgateError("invalid_params", `${p.path} is neither active swap nor a swap line of ${FSTAB}; RemoveSwapFile deletes only files known as swap.`, { hint: "Use DeleteLogFile or WriteFile for other files; read_action { action: \"ListSwap\" } shows the swap areas." });
  }
  // swapoff and the deletion use the path: only when no one but root can change a name on it (as AddSwapFile).
  // Dropping the fstab line of a file that is neither active nor present uses no path.
  if (active || st !== null) await refuseUnsafeSwapDir(ctx, p.path, dir, "remove");
  const warnings: string[] = [];
  if (active && active.used_kib > 0) {
    const avail = /^MemAvailable:\s+(\d+)/m.exec(await ctx.host.readText("/proc/meminfo"));
    const availKib = avail ? Number(avail[1]) : 0;
    warnings.push(`${Math.ceil(active.used_kib / 1024)} MiB are swapped out to ${p.path} and must move back to memory (${Math.floor(availKib / 1024)} MiB available)${active.used_kib > availKib ? ": NOT ENOUGH, swapoff will fail" : ""}.`);
  }
  const kept = fstab.text.split("\n").filter((_, i) => !fstab.lines.includes(i)).join("\n");
  return {
    summary: `Remove swap file ${p.path}:${active ? " swapoff," : ""}${fstab.lines.length > 0 ? ` drop its ${FSTAB} line,` : ""}${st !== null ? " delete the file" : ""}`.replace(/,$/, ""),
    current, intended,
    steps: active ? [["swapoff", p.path]] : [],
    warnings,
    detail: [
      ...(fstab.lines.length > 0 ? [`then write ${FSTAB}:`, fstabDiff(fstab.text, kept)] : []),
      ...(st !== null ? [`then delete ${p.path} (${Math.round(st.size / 1048576)} MiB${file ? `; inode ${file.ino} on device ${file.dev}, directory ${file.real_dir}` : ""})`] : []),
    ].join("\n"),
    fstab: fstab.lines.length > 0 ? { sha256: fstab.sha256, next: kept } : null,
    file,
  };
}

const sameFile = (a: FileIdentity, b: FileIdentity): boolean =>
  a === null || b === null ? a === b : a.dev === b.dev && a.ino === b.ino && a.real_dir === b.real_dir;
const identityText = (f: FileIdentity): string => (f === null ? "no file" : `inode ${f.ino} on device ${f.dev} in ${f.real_dir}`);

/**
 * RemoveSwapFile: swapoff, drop the file's /etc/fstab swap line (atomic, with the fstab the preview saw as
 * precondition), and delete the file (the held-directory removal of DeleteLogFile: same dev + inode as the preview).
 * The file's identity is in the preview (so in its hash) and is checked again in apply before swapoff
 * (`plan_changed`): swapoff takes a path, and root must not turn off or delete another file that took the name.
 * Refuses swap partitions, files that are not known as swap, links and non-regular files, and (as AddSwapFile) a
 * file whose directory chain someone other than root could change, or inside hostgate's own directories
 * (swap-common.ts refuseUnsafeSwapDir, at plan and again in apply).
 */
export default defineMutatingAction({
  name: "RemoveSwapFile",
  title: "Remove a swap file",
  description: "Turn off a swap file (swapoff), remove its /etc/fstab line and delete it. The plan shows the fstab diff and warns when swapped-out memory must move back. Refuses swap partitions and files not known as swap.",
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
  async apply(p, ctx, approved) {
    const seen = fileIdentity.safeParse((approved.current as { file?: unknown } | undefined)?.file);
    if (!seen.success) throw new HostgateError("internal_error", "RemoveSwapFile.apply needs the approved preview's `current.file`.");
    // Planned again under execute's lock, just before swapoff: the file at the path must be the one the approver saw
    // (execute has compared the preview hashes already; this closes the time since).
    const c = await plan(p, ctx);
    if (!sameFile(c.file, seen.data)) {
      throw new HostgateError("plan_changed", `${p.path} is not the file the approver saw (${identityText(seen.data)}; now ${identityText(c.file)}). Nothing was turned off or deleted.`, { hint: "Plan again and have the user approve the new preview." });
    }
    const out = await applyPlanned(ctx, c, 10 * 60_000);
    if (c.fstab) await ctx.mutator.writeFileAtomic(FSTAB, c.fstab.next, { expectedSha256: c.fstab.sha256 });
    if (seen.data) await ctx.mutator.removeFile(p.path, { how: "delete", expectedRealDir: seen.data.real_dir, expectedDev: seen.data.dev, expectedIno: seen.data.ino });
    return { ...out, changed: out.changed || c.fstab !== null || seen.data !== null };
  },
});
