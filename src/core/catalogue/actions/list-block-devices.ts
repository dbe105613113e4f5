import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { parseMountinfo } from "../../host/mountinfo.ts";

interface Device {
  name: string;
  maj_min: string;
  size_bytes: number;
  read_only: boolean;
  removable: boolean;
  rotational: boolean;
  type: string;
  model: string | null;
  mount_points: string[];
  children: Device[];
}
const device: z.ZodType<Device> = z.lazy(() => z.object({
  name: z.string(),
  maj_min: z.string(),
  size_bytes: z.number(),
  read_only: z.boolean(),
  removable: z.boolean(),
  rotational: z.boolean(),
  /** lsblk's TYPE: disk, part, loop, rom, lvm, crypt, dm, raid1…, md. */
  type: z.string(),
  model: z.string().nullable(),
  mount_points: z.array(z.string()),
  children: z.array(device),
}));

async function text(ctx: ActionContext, path: string): Promise<string | null> {
  try {
    return (await ctx.host.readText(path)).trim();
  } catch {
    return null;
  }
}

/** lsblk's TYPE for a whole device, from its sysfs directory (lsblk-properties: dm uuid prefix, md level, SCSI type 5 = rom). */
async function typeOf(ctx: ActionContext, name: string, sys: string): Promise<string> {
  if (name.startsWith("loop")) return "loop";
  if (name.startsWith("dm-")) {
    const uuid = (await text(ctx, `${sys}/dm/uuid`)) ?? "";
    const prefix = /^([A-Za-z]+)-/.exec(uuid)?.[1];
    return prefix ? prefix.toLowerCase() : "dm";
  }
  if (name.startsWith("md")) return (await text(ctx, `${sys}/md/level`)) ?? "md";
  if ((await text(ctx, `${sys}/device/type`)) === "5") return "rom";
  return "disk";
}

/** ListBlockDevices: disks and their partitions from /sys/block (what `lsblk -a` lists), with mount points from mountinfo. */
export default defineReadOnlyAction({
  name: "ListBlockDevices",
  title: "Block devices",
  description: "Disks, partitions, loop/LVM/RAID devices (/sys/block): size, type, read-only, rotational, mount points.",
  params: z.object({ include_empty: z.boolean().default(false).describe("also size-0 devices (unused loop devices)") }).strict(),
  output: z.object({ devices: z.array(device) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["storage"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const mounts = parseMountinfo(await ctx.host.readText("/proc/self/mountinfo"));
    const at = (majMin: string): string[] => [...new Set(mounts.filter((m) => m.device === majMin).map((m) => m.mount_point))];
    // swap devices show as lsblk's [SWAP] mount point
    const swaps = ((await text(ctx, "/proc/swaps")) ?? "").split("\n").slice(1).map((l) => l.split(/\s+/)[0]!);
    const read = async (name: string, sys: string, type: string | null): Promise<Device> => {
      const majMin = (await text(ctx, `${sys}/dev`)) ?? "";
      const model = await text(ctx, `${sys}/device/model`);
      return {
        name,
        maj_min: majMin,
        size_bytes: Number((await text(ctx, `${sys}/size`)) ?? 0) * 512, // sysfs counts 512-byte sectors whatever the block size
        read_only: (await text(ctx, `${sys}/ro`)) === "1",
        removable: (await text(ctx, `${sys}/removable`)) === "1",
        rotational: (await text(ctx, `${sys}/queue/rotational`)) === "1",
        type: type ?? (await typeOf(ctx, name, sys)),
        model: model === null || model === "" ? null : model,
        mount_points: [...at(majMin), ...(swaps.includes(`/dev/${name}`) ? ["[SWAP]"] : [])],
        children: [],
      };
    };
    const devices: Device[] = [];
    for (const name of (await ctx.host.readDir("/sys/block")).sort()) {
      const sys = `/sys/block/${name}`;
      const d = await read(name, sys, null);
      if (!params.include_empty && d.size_bytes === 0 && d.type === "loop") continue;
      const rotational = d.rotational;
      for (const part of (await ctx.host.readDir(sys)).filter((n) => n.startsWith(name)).sort()) {
        if ((await text(ctx, `${sys}/${part}/partition`)) === null) continue;
        d.children.push({ ...(await read(part, `${sys}/${part}`, "part")), rotational, removable: d.removable });
      }
      devices.push(d);
    }
    return { devices };
  },
});
