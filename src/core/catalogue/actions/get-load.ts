import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { parsePressure } from "../../host/pressure.ts";

const pressureLine = z.object({ avg10: z.number(), avg60: z.number(), avg300: z.number(), total_us: z.number() }).nullable();
const pressure = z.object({ some: pressureLine, full: pressureLine }).nullable();

async function readPressure(ctx: ActionContext, resource: string): Promise<z.infer<typeof pressure>> {
  try {
    return parsePressure(await ctx.host.readText(`/proc/pressure/${resource}`));
  } catch {
    return null; // PSI absent (kernel < 4.20 or psi=0): reported as null, not as zero
  }
}

/** Counts CPUs in a sysfs cpulist such as `0-3,6,8-9` (Documentation/admin-guide/cputopology.rst). */
export function countCpuList(list: string): number {
  let n = 0;
  for (const part of list.trim().split(",")) {
    if (part === "") continue;
    const [a, b] = part.split("-").map(Number);
    n += b === undefined ? 1 : b - a! + 1;
  }
  return n;
}

/** GetLoad: /proc/loadavg, online CPU count, and pressure stall information where the kernel has it. */
export default defineReadOnlyAction({
  name: "GetLoad",
  title: "Load",
  description: "Load averages, CPUs and pressure stalls.",
  params: z.object({}).strict(),
  output: z.object({
    load1: z.number(),
    load5: z.number(),
    load15: z.number(),
    runnable: z.number(),
    scheduling_entities: z.number(),
    cpu_count: z.number(),
    pressure: z.object({ cpu: pressure, memory: pressure, io: pressure }),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["host"],
  host_derived: false,
  async run(_params, ctx) {
    const [l1, l5, l15, entities] = (await ctx.host.readText("/proc/loadavg")).trim().split(/\s+/);
    const [runnable, total] = (entities ?? "0/0").split("/").map(Number);
    return {
      load1: Number(l1),
      load5: Number(l5),
      load15: Number(l15),
      runnable: runnable ?? 0,
      scheduling_entities: total ?? 0,
      cpu_count: countCpuList(await ctx.host.readText("/sys/devices/system/cpu/online")),
      pressure: { cpu: await readPressure(ctx, "cpu"), memory: await readPressure(ctx, "memory"), io: await readPressure(ctx, "io") },
    };
  },
});
