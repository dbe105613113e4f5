import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { unescapeMountField } from "../../host/mountinfo.ts";

const area = z.object({ name: z.string(), type: z.string(), size_bytes: z.number(), used_bytes: z.number(), priority: z.number() });

/** Parses /proc/swaps (sizes in KiB; names octal-escaped like mountinfo's). */
export function parseSwaps(text: string): z.infer<typeof area>[] {
  return text.split("\n").slice(1).filter((l) => l.trim() !== "").map((l) => {
    const f = l.trim().split(/\s+/);
    return { name: unescapeMountField(f[0]!), type: f[1]!, size_bytes: Number(f[2]) * 1024, used_bytes: Number(f[3]) * 1024, priority: Number(f[4]) };
  });
}

/** ListSwap: active swap areas (/proc/swaps, what `swapon --show` lists) and the totals of /proc/meminfo. */
export default defineReadOnlyAction({
  name: "ListSwap",
  title: "Swap",
  description: "Active swap devices and files (/proc/swaps): size, used, priority; swap totals.",
  params: z.object({}).strict(),
  output: z.object({ areas: z.array(area), total_bytes: z.number(), free_bytes: z.number() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["storage"],
  host_derived: true,
  needs: ["files"],
  async run(_params, ctx) {
    const areas = parseSwaps(await ctx.host.readText("/proc/swaps"));
    const meminfo = await ctx.host.readText("/proc/meminfo");
    const kib = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(meminfo)?.[1] ?? 0) * 1024;
    return { areas, total_bytes: kib("SwapTotal"), free_bytes: kib("SwapFree") };
  },
});
