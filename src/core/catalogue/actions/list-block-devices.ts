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

/**
 * One sysfs attribute, trimmed; null when the file is absent or unreadable. sysfs makes an attribute whole on
 * the first read(2) (its show() fills one page), so one read suffices (`singleRead`).
 */
async function text(ctx: ActionContext, path: string): Promise<string | null> {
  try {
    return (await ctx.host.readText(path, { singleRead: true })).trim();
  } catch {
    return null;
  }
}

/**
 * The KEY=value lines of a sysfs `uevent` file (Documentation/ABI/testing/sysfs-uevent): for a block device
 * MAJOR, MINOR, DEVNAME, DEVTYPE (`disk` or `partition`) and, for a partition, PARTN. One read instead of the
 * `dev` and `partition` files.
 */
export function parseUevent(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/**
 * lsblk's TYPE for a whole device, from its sysfs directory and the names in it (`entries`: whether it has
 * `device/`, `dm/`, `md/`), so absent files are never opened (lsblk-properties: dm uuid prefix, md level, SCSI
 * type 5 = rom).
 */
async function typeOf(ctx: ActionContext, name: string, sys: string, entries: ReadonlySet<string>): Promise<string> {
  if (name.startsWith("loop")) return "loop";
  if (entries.has("dm")) {
    const uuid = (await text(ctx, `${sys}/dm/uuid`)) ?? "";
    const prefix = /^([A-Za-z]+)-/.exec(uuid)?.[1];
    return prefix ? prefix.toLowerCase() : "dm";
  }
  if (entries.has("md")) return (await text(ctx, `${sys}/md/level`)) ?? "md";
  if (entries.has("device") && (await text(ctx, `${sys}/device/type`)) === "5") return "rom";
  return "disk";
}

/** ListBlockDevices: disks and their partitions from /sys/block (what `lsblk -a` lists), with mount points from mountinfo. */
export default defineReadOnlyAction({
  name: "ListBlockDevices",
  title: "Block devices",
  description: "Disks, partitions, loop/LVM/RAID devices (/sys/block): size, type, read-only, rotational, mount points.",
  params: z.object({ include_empty: z.boolean().default(false).describe("also unused (size-0) loop devices, as lsblk -a; other size-0 devices (an unconfigured zram, an empty drive) are listed either way, as lsblk lists them") }).strict(),
  output: z.object({ devices: z.array(device) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["storage"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    // Reads per call (issue 24: ≤ 2 ms p50): mountinfo and swaps once; per disk its directory listing, uevent,
    // size, ro, removable, queue/rotational, and device/model + device/type only when it has a `device/`; per
    // partition uevent, size and ro (model, removable and rotational are the disk's); an unused loop device
    // (size 0) costs one read unless include_empty. All sysfs reads are synchronous in the local probe.
    const mounts = parseMountinfo(await ctx.host.readText("/proc/self/mountinfo"));
    const at = (majMin: string): string[] => [...new Set(mounts.filter((m) => m.device === majMin).map((m) => m.mount_point))];
    // swap devices show as lsblk's [SWAP] mount point
    const swaps = ((await text(ctx, "/proc/swaps")) ?? "").split("\n").slice(1).map((l) => l.split(/\s+/)[0]!);
    const mountPoints = (name: string, majMin: string): string[] => [...at(majMin), ...(swaps.includes(`/dev/${name}`) ? ["[SWAP]"] : [])];
    const majMinOf = (u: Record<string, string>): string => (u.MAJOR !== undefined && u.MINOR !== undefined ? `${u.MAJOR}:${u.MINOR}` : "");
    // sysfs counts 512-byte sectors whatever the block size
    const sizeOf = async (sys: string): Promise<number> => Number((await text(ctx, `${sys}/size`)) ?? 0) * 512;
    const devices: Device[] = [];
    for (const name of (await ctx.host.readDir("/sys/block")).sort()) {
      const sys = `/sys/block/${name}`;
      const size_bytes = await sizeOf(sys);
      if (!params.include_empty && size_bytes === 0 && name.startsWith("loop")) continue;
      const entries = new Set(await ctx.host.readDir(sys));
      const majMin = majMinOf(parseUevent((await text(ctx, `${sys}/uevent`)) ?? ""));
      const model = entries.has("device") ? await text(ctx, `${sys}/device/model`) : null;
      const d: Device = {
        name,
        maj_min: majMin,
        size_bytes,
        read_only: (await text(ctx, `${sys}/ro`)) === "1",
        removable: (await text(ctx, `${sys}/removable`)) === "1",
        rotational: (await text(ctx, `${sys}/queue/rotational`)) === "1",
        type: await typeOf(ctx, name, sys, entries),
        model: model === null || model === "" ? null : model,
        mount_points: mountPoints(name, majMin),
        children: [],
      };
      for (const part of [...entries].filter((n) => n.startsWith(name)).sort()) {
        const u = parseUevent((await text(ctx, `${sys}/${part}/uevent`)) ?? "");
        if (u.DEVTYPE !== "partition") continue;
        const partMajMin = majMinOf(u);
        d.children.push({
          name: part, maj_min: partMajMin, size_bytes: await sizeOf(`${sys}/${part}`), read_only: (await text(ctx, `${sys}/${part}/ro`)) === "1",
          removable: d.removable, rotational: d.rotational, type: "part", model: null, mount_points: mountPoints(part, partMajMin), children: [],
        });
      }
      devices.push(d);
    }
    return { devices };
  },
});
