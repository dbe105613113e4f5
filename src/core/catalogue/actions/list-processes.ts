import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { paginate } from "../../pagination.ts";
import { redactLines, redactSecrets } from "../../redact.ts";
import { readArgv, readProcessHead, readProcessStats, readUsers, rowsFromTable, statusNameOf, type ProcessHead, type ProcessInfo, type ProcessStat } from "./process-table.ts";

/** One process while the list is built: its stat row, then its status fields and argv once they are read. */
interface Row {
  stat: ProcessStat;
  head?: ProcessHead;
  argv?: string[];
}

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
    // Every process's stat; its status (user, memory) only when the user filter or the memory sort needs it,
    // else for the rows of the page (the name filter takes the name from stat when it is the same); its command
    // line (a third read, and most of the redaction work) only for the rows the name filter looks at and the
    // rows of the page. A process that exits between two of its reads is left out, as one that exits during
    // its first read is.
    // A host that reads its whole table at once (over SSH: one fixed command, one round trip, issue 20) gives
    // every row complete; the others (local) read files one by one, only those the answer needs.
    const table = ctx.host.readProcessTable ? await ctx.host.readProcessTable() : null;
    const [users, stats] = table ? [new Map<number, string>(), []] : await Promise.all([readUsers(ctx), readProcessStats(ctx)]);
    let rows: Row[] = table ? rowsFromTable(table) : stats.map((stat) => ({ stat }));
    if (!table && (params.user !== undefined || params.sort === "memory")) rows = await withHeads(rows, ctx, users);
    if (params.user !== undefined) rows = rows.filter((r) => r.head!.user === params.user);
    if (params.name !== undefined) {
      // The filter sees the text the answer shows: redacted name and argv[0]. On the raw text it would tell a
      // model whether a secret in a process title starts with a guessed prefix (issue 12's oracle).
      const needle = params.name;
      // Every row is looked at at once (over SSH the reads of all of them share round trips, issue 20); the
      // order of the rows is kept.
      const looked = await Promise.all(rows.map(async (r): Promise<Row | null> => {
        let name = r.head?.name ?? statusNameOf(r.stat);
        if (name === null) {
          const head = await readProcessHead(ctx, r.stat, users);
          if (!head) return null;
          r.head = head;
          name = head.name;
        }
        if (redactSecrets(name).text.includes(needle)) return r;
        const argv = r.argv ?? await readArgv(ctx, r.stat.pid);
        return argv !== null && (redactLines(argv).lines[0] ?? "").includes(needle) ? { ...r, argv } : null;
      }));
      rows = looked.filter((r): r is Row => r !== null);
    }
    const key = { cpu: (r: Row) => -r.stat.cpu_percent, memory: (r: Row) => -r.head!.rss_bytes, pid: (r: Row) => r.stat.pid }[params.sort];
    rows.sort((a, b) => key(a) - key(b) || a.stat.pid - b.stat.pid);
    const page = paginate(rows, params.limit, params.cursor, `ps:${params.name ?? ""}:${params.user ?? ""}:${params.sort}`);
    // The page's status and command lines, all read at once (one batch of round trips over SSH, not two per row).
    const full = await Promise.all(page.items.map(async (r): Promise<ProcessInfo | null> => {
      const [head, argv] = await Promise.all([r.head ?? readProcessHead(ctx, r.stat, users), r.argv ?? readArgv(ctx, r.stat.pid)]);
      return head && argv ? { ...head, argv } : null;
    }));
    const processes = full.filter((p): p is ProcessInfo => p !== null);
    return { processes, total: page.total - (page.items.length - processes.length), next_cursor: page.next_cursor };
  },
});

/** Adds the status fields to every row; rows of processes that exited meanwhile are dropped. */
async function withHeads(rows: Row[], ctx: Parameters<typeof readArgv>[0], users: Map<number, string>): Promise<Row[]> {
  const heads = await Promise.all(rows.map((r) => readProcessHead(ctx, r.stat, users)));
  const out: Row[] = [];
  for (let i = 0; i < rows.length; i++) if (heads[i]) out.push({ stat: rows[i]!.stat, head: heads[i]! });
  return out;
}
