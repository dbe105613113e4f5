import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { paginate } from "../../pagination.ts";
import { readProcessTable } from "./process-table.ts";

export const processSchema = z.object({
  pid: z.number(),
  ppid: z.number(),
  name: z.string(),
  state: z.string(),
  user: z.string().nullable(),
  uid: z.number().nullable(),
  threads: z.number(),
  rss_bytes: z.number(),
  vms_bytes: z.number(),
  cpu_seconds: z.number(),
  cpu_percent: z.number(),
  started_at: z.string(),
  argv: z.array(z.string()),
});

/** ListProcesses: the process table from /proc, filtered, sorted and paginated. */
export default defineReadOnlyAction({
  name: "ListProcesses",
  title: "Processes",
  description: "Running processes with user, memory and CPU.",
  params: z.object({
    name: z.string().max(256).optional().describe("Substring"),
    user: z.string().max(64).optional(),
    sort: z.enum(["cpu", "memory", "pid"]).default("cpu"),
    limit: z.number().int().min(1).max(500).default(50),
    cursor: z.string().max(256).optional(),
  }).strict(),
  output: z.object({ processes: z.array(processSchema), total: z.number(), next_cursor: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["host"],
  host_derived: true,
  async run(params, ctx) {
    let procs = await readProcessTable(ctx);
    if (params.name !== undefined) {
      const needle = params.name;
      procs = procs.filter((p) => p.name.includes(needle) || (p.argv[0] ?? "").includes(needle));
    }
    if (params.user !== undefined) procs = procs.filter((p) => p.user === params.user);
    const key = { cpu: (p: (typeof procs)[number]) => -p.cpu_percent, memory: (p: (typeof procs)[number]) => -p.rss_bytes, pid: (p: (typeof procs)[number]) => p.pid }[params.sort];
    procs.sort((a, b) => key(a) - key(b) || a.pid - b.pid);
    const page = paginate(procs, params.limit, params.cursor, `ps:${params.name ?? ""}:${params.user ?? ""}:${params.sort}`);
    return { processes: page.items, total: page.total, next_cursor: page.next_cursor };
  },
});
