import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";

const job = z.object({
  /** The file it comes from. */
  source: z.string(),
  line: z.number().nullable(),
  /** `crontab` (a table line), `run-parts` (a script in /etc/cron.{hourly,…}). */
  kind: z.enum(["crontab", "run-parts"]),
  /** Five fields, an @keyword (`@reboot`, `@daily`), or the run-parts period (`daily`). */
  schedule: z.string(),
  user: z.string(),
  command: z.string(),
});
type Job = z.infer<typeof job>;

/** Where cron reads on a host: Debian's and RHEL's per-user spools both. Exported for tests that plant a tree. */
export const CRON_PATHS = {
  crontab: "/etc/crontab",
  cronD: "/etc/cron.d",
  periodic: ["hourly", "daily", "weekly", "monthly", "yearly"].map((p) => ({ period: p, dir: `/etc/cron.${p}` })),
  spools: ["/var/spool/cron/crontabs", "/var/spool/cron"],
};

/** run-parts(8) and Debian cron's file-name rule: names of letters, digits, `_` and `-` only (no dot: no *.dpkg-old). */
const RUN_PARTS_NAME = /^[A-Za-z0-9_-]+$/;
const SPECIAL = /^@(reboot|yearly|annually|monthly|weekly|daily|midnight|hourly)$/;
const ENV = /^[A-Za-z_][A-Za-z0-9_]*\s*=/;

/**
 * Parses a crontab (crontab(5)). `systemTable`: lines carry a user field after the schedule (/etc/crontab,
 * /etc/cron.d); else the table is `owner`'s. Environment assignments and comments are skipped (values may be secrets).
 */
export function parseCrontab(source: string, text: string, systemTable: boolean, owner: string): Job[] {
  const out: Job[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || ENV.test(line)) return;
    const f = line.split(/\s+/);
    const special = SPECIAL.test(f[0]!);
    const nSched = special ? 1 : 5;
    const nFields = nSched + (systemTable ? 1 : 0);
    if (f.length <= nFields) return;
    const rest = line.replace(new RegExp(`^(\\S+\\s+){${nFields}}`), "");
    out.push({ source, line: i + 1, kind: "crontab", schedule: f.slice(0, nSched).join(" "), user: systemTable ? f[nSched]! : owner, command: rest });
  });
  return out;
}

async function tryRead(ctx: ActionContext, path: string): Promise<string | null> {
  try {
    return await ctx.host.readText(path, { maxBytes: 1024 * 1024 });
  } catch {
    return null;
  }
}

async function tryList(ctx: ActionContext, dir: string): Promise<string[]> {
  try {
    return (await ctx.host.readDir(dir)).sort();
  } catch {
    return [];
  }
}

/** Every cron job of a host, from the paths given (default {@link CRON_PATHS}); `errors` names what could not be read. */
export async function readCronJobs(ctx: ActionContext, paths = CRON_PATHS): Promise<{ jobs: Job[]; errors: string[] }> {
  const jobs: Job[] = [];
  const errors: string[] = [];
  const crontab = await tryRead(ctx, paths.crontab);
  if (crontab !== null) jobs.push(...parseCrontab(paths.crontab, crontab, true, "root"));
  for (const name of (await tryList(ctx, paths.cronD)).filter((n) => RUN_PARTS_NAME.test(n))) {
    const text = await tryRead(ctx, `${paths.cronD}/${name}`);
    if (text === null) errors.push(`${paths.cronD}/${name}`);
    else jobs.push(...parseCrontab(`${paths.cronD}/${name}`, text, true, "root"));
  }
  for (const { period, dir } of paths.periodic) {
    for (const name of (await tryList(ctx, dir)).filter((n) => RUN_PARTS_NAME.test(n))) {
      const st = await ctx.host.stat(`${dir}/${name}`).catch(() => null);
      // run-parts runs regular files (or links to them) that are executable: as `run-parts --test` lists them.
      if (!st || st.is_directory || ((st.mode ?? 0o755) & 0o111) === 0) continue;
      jobs.push({ source: `${dir}/${name}`, line: null, kind: "run-parts", schedule: period, user: "root", command: `${dir}/${name}` });
    }
  }
  for (const spool of paths.spools) {
    for (const user of await tryList(ctx, spool)) {
      if (!/^[a-z_][a-z0-9_.-]*\$?$/i.test(user) || user === "crontabs") continue;
      const path = `${spool}/${user}`;
      const st = await ctx.host.stat(path).catch(() => null);
      if (!st?.is_file) continue;
      const text = await tryRead(ctx, path);
      if (text === null) errors.push(path);
      else jobs.push(...parseCrontab(path, text, false, user));
    }
  }
  return { jobs, errors };
}

/** ListCronJobs: cron jobs from /etc/crontab, /etc/cron.d, /etc/cron.{hourly,daily,weekly,monthly,yearly} and per-user spools. */
export default defineReadOnlyAction({
  name: "ListCronJobs",
  title: "Cron jobs",
  description: "Cron jobs: system crontab, cron.d, cron.hourly/daily/…, and each user's crontab.",
  params: z.object({ user: z.string().max(64).optional().describe("only jobs running as this user") }).strict(),
  output: z.object({ jobs: z.array(job), errors: z.array(z.string()) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["scheduling"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const r = await readCronJobs(ctx);
    return params.user === undefined ? r : { jobs: r.jobs.filter((j) => j.user === params.user), errors: r.errors };
  },
});
