import { z } from "zod";
import { defineMutatingAction, type ActionContext, type Preview } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { activeSwaps, FSTAB, fstabDiff, readFstab, swapPath } from "./swap-common.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned, type PlannedChange } from "./planned-change.ts";

const params = z.object({ path: swapPath.describe("Absolute path of the swap file, as /proc/swaps or /etc/fstab names it") }).strict();
type Params = z.infer<typeof params>;

interface RemovePlan extends PlannedChange {
  fstab: { sha256: string; next: string } | null;
  file: { real_dir: string; dev: number; ino: number } | null;
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
  const current = { exists: st !== null, active: active !== undefined, in_fstab: fstab.lines.length > 0 };
  const intended = { exists: false, active: false, in_fstab: false };
  if (!active && fstab.lines.length === 0) {
    if (st === null) return { summary: `Remove swap file ${p.path}: nothing to do (not active, not in ${FSTAB}, absent)`, current, intended, steps: [], fstab: null, file: null };
    throw new HostgateError("invalid_params", `${p.path} is neither active swap nor a swap line of ${FSTAB}; RemoveSwapFile deletes only files known as swap.`, { hint: "Use DeleteLogFile or WriteFile for other files; read_action { action: \"ListSwap\" } shows the swap areas." });
  }
  if (st !== null && (st.is_symlink || !st.is_file)) throw new HostgateError("invalid_params", `${p.path} is ${st.is_symlink ? "a symbolic link" : "not a regular file"}; nothing is removed.`);
  const dir = p.path.slice(0, p.path.lastIndexOf("/")) || "/";
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
      ...(st !== null ? [`then delete ${p.path} (${Math.round(st.size / 1048576)} MiB)`] : []),
    ].join("\n"),
    fstab: fstab.lines.length > 0 ? { sha256: fstab.sha256, next: kept } : null,
    file: st !== null && st.dev !== undefined && st.ino !== undefined ? { real_dir: await ctx.host.realPath(dir), dev: st.dev, ino: st.ino } : null,
  };
}

/**
 * RemoveSwapFile: swapoff, drop the file's /etc/fstab swap line (atomic, with the fstab the preview saw as
 * precondition), and delete the file (the held-directory removal of DeleteLogFile: same dev + inode as the preview).
 * Refuses swap partitions, files that are not known as swap, links and non-regular files.
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
  async apply(p, ctx) {
    const c = await plan(p, ctx);
    const out = await applyPlanned(ctx, c, 10 * 60_000);
    if (c.fstab) await ctx.mutator.writeFileAtomic(FSTAB, c.fstab.next, { expectedSha256: c.fstab.sha256 });
    if (c.file) await ctx.mutator.removeFile(p.path, { how: "delete", expectedRealDir: c.file.real_dir, expectedDev: c.file.dev, expectedIno: c.file.ino });
    return { ...out, changed: out.changed || c.fstab !== null || c.file !== null };
  },
});
