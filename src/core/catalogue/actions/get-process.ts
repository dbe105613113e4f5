import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import { processSchema } from "./list-processes.ts";
import { readProcess, readUsers } from "./process-table.ts";

/** GetProcess: one process in detail. The environment is never returned: it routinely holds secrets. */
export default defineReadOnlyAction({
  name: "GetProcess",
  title: "Process details",
  description: "One process's exe, cwd, fds and children.",
  params: z.object({ pid: z.number().int().min(1).max(4_194_304) }).strict(),
  output: processSchema.extend({
    exe: z.string().nullable(),
    cwd: z.string().nullable(),
    open_fds: z.number().nullable(),
    children: z.array(z.number()),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["host"],
  host_derived: true,
  async run(params, ctx) {
    const info = await readProcess(ctx, params.pid, await readUsers(ctx));
    if (!info) {
      throw new HostgateError("not_found", `No process with pid ${params.pid}.`, { hint: "Call list_processes to find current pids." });
    }
    const optional = async <T>(f: () => Promise<T>): Promise<T | null> => { try { return await f(); } catch { return null; } };
    const childrenText = await optional(() => ctx.host.readText(`/proc/${params.pid}/task/${params.pid}/children`));
    return {
      ...info,
      exe: await optional(() => ctx.host.readLink(`/proc/${params.pid}/exe`)),
      cwd: await optional(() => ctx.host.readLink(`/proc/${params.pid}/cwd`)),
      open_fds: await optional(async () => (await ctx.host.readDir(`/proc/${params.pid}/fd`)).length),
      children: (childrenText ?? "").trim().split(/\s+/).filter(Boolean).map(Number),
    };
  },
});
