import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { parseMeminfo } from "../../host/meminfo.ts";

/** GetMemoryUsage: /proc/meminfo in bytes, with `used` as free(1) computes it (total − available). */
export default defineReadOnlyAction({
  name: "GetMemoryUsage",
  title: "Memory usage",
  description: "RAM and swap use.",
  params: z.object({}).strict(),
  output: z.object({
    total_bytes: z.number(),
    free_bytes: z.number(),
    available_bytes: z.number(),
    used_bytes: z.number(),
    buffers_bytes: z.number(),
    cached_bytes: z.number(),
    shared_bytes: z.number(),
    swap_total_bytes: z.number(),
    swap_free_bytes: z.number(),
    swap_used_bytes: z.number(),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["host"],
  host_derived: false,
  async run(_params, ctx) {
    const m = parseMeminfo(await ctx.host.readText("/proc/meminfo"));
    const total = m.MemTotal ?? 0;
    const available = m.MemAvailable ?? m.MemFree ?? 0;
    const swapTotal = m.SwapTotal ?? 0;
    const swapFree = m.SwapFree ?? 0;
    return {
      total_bytes: total,
      free_bytes: m.MemFree ?? 0,
      available_bytes: available,
      used_bytes: total - available,
      buffers_bytes: m.Buffers ?? 0,
      cached_bytes: (m.Cached ?? 0) + (m.SReclaimable ?? 0),
      shared_bytes: m.Shmem ?? 0,
      swap_total_bytes: swapTotal,
      swap_free_bytes: swapFree,
      swap_used_bytes: swapTotal - swapFree,
    };
  },
});
