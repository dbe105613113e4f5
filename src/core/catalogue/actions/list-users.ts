import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { isNoLoginShell, parsePasswd, uidMin } from "../../host/passwd.ts";
import { paginate } from "../../pagination.ts";

const user = z.object({
  name: z.string(),
  uid: z.number(),
  gid: z.number(),
  gecos: z.string(),
  home: z.string(),
  shell: z.string(),
  /** The shell accepts interactive logins (not nologin/false). */
  can_login: z.boolean(),
  /** uid below login.defs UID_MIN (or 65534, nobody). */
  system: z.boolean(),
});

/**
 * ListUsers: local accounts from /etc/passwd (what `getent -s files passwd` prints), never the password field.
 * `system` follows /etc/login.defs UID_MIN (default 1000). Accounts of other NSS sources (LDAP, sssd) are not listed.
 */
export default defineReadOnlyAction({
  name: "ListUsers",
  title: "Users",
  description: "Local user accounts (/etc/passwd): uid, gid, home, shell, whether they can log in.",
  params: z.object({
    include_system: z.boolean().default(true),
    limit: z.number().int().min(1).max(1000).default(200),
    cursor: z.string().max(256).optional(),
  }).strict(),
  output: z.object({ users: z.array(user), uid_min: z.number(), total: z.number(), next_cursor: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const min = uidMin(await ctx.host.readText("/etc/login.defs").catch(() => null));
    const rows = parsePasswd(await ctx.host.readText("/etc/passwd"))
      .map((u) => ({ ...u, can_login: !isNoLoginShell(u.shell), system: u.uid < min || u.uid === 65534 }))
      .filter((u) => params.include_system || !u.system);
    const page = paginate(rows, params.limit, params.cursor, `users:${params.include_system}`);
    return { users: page.items, uid_min: min, total: page.total, next_cursor: page.next_cursor };
  },
});
