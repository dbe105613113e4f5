import { z } from "zod";
import { defineReadOnlyAction, DISTRO_FAMILIES, type ActionContext } from "../action.ts";
import { familyOf, parseOsRelease } from "../../host/os-release.ts";

const output = z.object({
  hostname: z.string(),
  os: z.object({
    id: z.string(),
    id_like: z.array(z.string()),
    name: z.string(),
    version_id: z.string().nullable(),
    pretty_name: z.string(),
  }),
  family: z.enum(DISTRO_FAMILIES as [string, ...string[]]),
  kernel: z.object({ release: z.string(), version: z.string() }),
  architecture: z.string().nullable(),
  uptime_seconds: z.number(),
  boot_id: z.string(),
  virtualization: z.object({
    kind: z.enum(["none", "vm", "container"]),
    technology: z.string().nullable(),
  }),
});

async function tryRead(ctx: ActionContext, path: string): Promise<string | null> {
  try {
    return await ctx.host.readText(path);
  } catch {
    return null;
  }
}

/** Container detection order: systemd's marker, then well-known runtime files (systemd-detect-virt's sources). */
async function detectVirtualization(ctx: ActionContext): Promise<z.infer<typeof output>["virtualization"]> {
  const marker = (await tryRead(ctx, "/run/systemd/container"))?.trim();
  if (marker) return { kind: "container", technology: marker };
  if ((await tryRead(ctx, "/.dockerenv")) !== null) return { kind: "container", technology: "docker" };
  if ((await tryRead(ctx, "/run/.containerenv")) !== null) return { kind: "container", technology: "podman" };
  const cgroup = await tryRead(ctx, "/proc/1/cgroup");
  if (cgroup && /\/(docker|kubepods|lxc)\//.test(cgroup)) return { kind: "container", technology: /\/(docker|kubepods|lxc)\//.exec(cgroup)![1]! };
  const vendor = `${(await tryRead(ctx, "/sys/class/dmi/id/sys_vendor")) ?? ""} ${(await tryRead(ctx, "/sys/class/dmi/id/product_name")) ?? ""}`;
  const vm = [["KVM", "kvm"], ["QEMU", "qemu"], ["VMware", "vmware"], ["VirtualBox", "oracle"], ["Xen", "xen"], ["Microsoft Corporation", "microsoft"], ["Amazon EC2", "amazon"], ["Google", "google"]]
    .find(([needle]) => vendor.includes(needle!));
  if (vm) return { kind: "vm", technology: vm[1]! };
  const cpuinfo = await tryRead(ctx, "/proc/cpuinfo");
  if (cpuinfo && /^flags\s*:.*\bhypervisor\b/m.test(cpuinfo)) return { kind: "vm", technology: null };
  return { kind: "none", technology: null };
}

/** GetSystemInfo: identity of the host from os-release(5), /proc/sys/kernel and /proc/uptime. */
export default defineReadOnlyAction({
  name: "GetSystemInfo",
  title: "System info",
  description: "OS, kernel, arch, uptime, virtualization.",
  params: z.object({}).strict(),
  output,
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["host"],
  host_derived: true,
  async run(_params, ctx) {
    const osr = parseOsRelease((await tryRead(ctx, "/etc/os-release")) ?? (await tryRead(ctx, "/usr/lib/os-release")) ?? "");
    const uptime = Number(((await tryRead(ctx, "/proc/uptime")) ?? "0").split(" ")[0]);
    const arch = (await tryRead(ctx, "/proc/sys/kernel/arch"))?.trim() ?? null;
    return {
      hostname: ((await tryRead(ctx, "/proc/sys/kernel/hostname")) ?? "").trim(),
      os: {
        id: osr.ID ?? "linux",
        id_like: (osr.ID_LIKE ?? "").split(/\s+/).filter(Boolean),
        name: osr.NAME ?? "Linux",
        version_id: osr.VERSION_ID ?? null,
        pretty_name: osr.PRETTY_NAME ?? osr.NAME ?? "Linux",
      },
      family: familyOf(osr),
      kernel: {
        release: ((await tryRead(ctx, "/proc/sys/kernel/osrelease")) ?? "").trim(),
        version: ((await tryRead(ctx, "/proc/sys/kernel/version")) ?? "").trim(),
      },
      architecture: arch || null,
      uptime_seconds: uptime,
      boot_id: ((await tryRead(ctx, "/proc/sys/kernel/random/boot_id")) ?? "").trim(),
      virtualization: await detectVirtualization(ctx),
    };
  },
});
