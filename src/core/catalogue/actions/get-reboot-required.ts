import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";

/** Paths read, exported for tests that plant a tree. */
export const REBOOT_PATHS = { flag: "/run/reboot-required", pkgs: "/run/reboot-required.pkgs", modules: "/lib/modules", osrelease: "/proc/sys/kernel/osrelease" };

/** Orders kernel release strings by their number runs (6.1.0-28-amd64 < 6.1.0-30-amd64 < 6.12.0-1). */
export function compareKernelRelease(a: string, b: string): number {
  const pa = a.split(/(\d+)/);
  const pb = b.split(/(\d+)/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? "";
    const y = pb[i] ?? "";
    if (x === y) continue;
    if (/^\d+$/.test(x) && /^\d+$/.test(y)) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return 0;
}

/** The verdict from the given paths (default {@link REBOOT_PATHS}). */
export async function rebootRequired(ctx: ActionContext, paths = REBOOT_PATHS): Promise<{ required: boolean; reasons: string[]; packages: string[]; running_kernel: string; newest_installed_kernel: string | null }> {
  const reasons: string[] = [];
  let packages: string[] = [];
  const flag = await ctx.host.stat(paths.flag).then(() => true, () => false);
  if (flag) {
    reasons.push(`${paths.flag} exists (Debian/Ubuntu: a package asked for a reboot)`);
    packages = (await ctx.host.readText(paths.pkgs, { maxBytes: 64 * 1024 }).catch(() => "")).split("\n").map((l) => l.trim()).filter((l) => l !== "");
    packages = [...new Set(packages)];
  }
  const running = (await ctx.host.readText(paths.osrelease)).trim();
  // needs-restarting -r's kernel test: a newer kernel is installed than the one running (modules dirs name installed kernels)
  const installed = (await ctx.host.readDir(paths.modules).catch(() => [] as string[])).filter((n) => /^\d/.test(n)).sort(compareKernelRelease);
  const newest = installed.at(-1) ?? null;
  if (newest !== null && compareKernelRelease(newest, running) > 0) reasons.push(`kernel ${newest} is installed but ${running} is running`);
  return { required: reasons.length > 0, reasons, packages, running_kernel: running, newest_installed_kernel: newest };
}

/** GetRebootRequired: whether the host wants a reboot: Debian's /run/reboot-required flag, and a newer installed kernel than the running one (RHEL's needs-restarting -r kernel test). */
export default defineReadOnlyAction({
  name: "GetRebootRequired",
  title: "Reboot required",
  description: "Whether a reboot is pending: the reboot-required flag and packages, running vs newest installed kernel.",
  params: z.object({}).strict(),
  output: z.object({ required: z.boolean(), reasons: z.array(z.string()), packages: z.array(z.string()), running_kernel: z.string(), newest_installed_kernel: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["kernel"],
  host_derived: true,
  needs: ["files"],
  async run(_params, ctx) {
    return rebootRequired(ctx);
  },
});
