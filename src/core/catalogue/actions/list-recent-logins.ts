import { z } from "zod";
import { defineReadOnlyAction, type ActionContext } from "../action.ts";
import { parseUtmp } from "../../host/utmp.ts";

const login = z.object({ user: z.string(), tty: z.string().nullable(), remote_host: z.string().nullable(), at: z.string() });

/** wtmp (successful logins), btmp (failed ones: root-only, written by login/sshd through PAM when configured). */
export const LOGIN_FILES = { wtmp: "/var/log/wtmp", btmp: "/var/log/btmp" };

/**
 * The newest `limit` logins of a utmp-format file (utmp(5) records), newest first; null when the file cannot be
 * read. The whole file is read (wtmp is rotated monthly by logrotate on Debian and RHEL).
 */
export async function readLogins(ctx: ActionContext, path: string, limit: number): Promise<z.infer<typeof login>[] | null> {
  let data: string;
  try {
    data = await ctx.host.readText(path, { encoding: "latin1" });
  } catch {
    return null;
  }
  return parseUtmp(data)
    .filter((r) => (r.type === "user_process" || r.type === "login_process") && r.user !== "")
    .reverse()
    .slice(0, limit)
    .map((r) => ({ user: r.user, tty: r.line || null, remote_host: r.host || null, at: new Date(r.time_ms).toISOString() }));
}

/** ListRecentLogins: the newest logins (wtmp, what `last` reads) and failed logins (btmp, what `lastb` reads). */
export default defineReadOnlyAction({
  name: "ListRecentLogins",
  title: "Recent logins",
  description: "Newest successful (wtmp) and failed (btmp) logins: user, tty, remote host, time.",
  params: z.object({ limit: z.number().int().min(1).max(500).default(50) }).strict(),
  output: z.object({ logins: z.array(login), failed: z.array(login).nullable().describe("null when btmp is absent or unreadable") }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files"],
  async run(p, ctx) {
    return { logins: (await readLogins(ctx, LOGIN_FILES.wtmp, p.limit)) ?? [], failed: await readLogins(ctx, LOGIN_FILES.btmp, p.limit) };
  },
});
