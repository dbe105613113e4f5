import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { parseGroup, parsePasswd } from "../../host/passwd.ts";
import { paginate } from "../../pagination.ts";

const group = z.object({
  name: z.string(),
  gid: z.number(),
  /** Supplementary members as /etc/group lists them. */
  members: z.array(z.string()),
  /** Accounts whose primary group this is (/etc/passwd gid), which /etc/group does not list. */
  primary_of: z.array(z.string()),
});

/** ListGroups: local groups from /etc/group (what `getent -s files group` prints) with the accounts whose primary group each is. */
export default defineReadOnlyAction({
  name: "ListGroups",
  title: "Groups",
  description: "Local groups (/etc/group): gid, members, and accounts with it as primary group.",
  params: z.object({
    name: z.string().max(64).optional().describe("only this group"),
    limit: z.number().int().min(1).max(1000).default(200),
    cursor: z.string().max(256).optional(),
  }).strict(),
  output: z.object({ groups: z.array(group), total: z.number(), next_cursor: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files"],
  async run(params, ctx) {
    const users = parsePasswd(await ctx.host.readText("/etc/passwd").catch(() => ""));
    const rows = parseGroup(await ctx.host.readText("/etc/group"))
      .filter((g) => params.name === undefined || g.name === params.name)
      .map((g) => ({ ...g, primary_of: users.filter((u) => u.gid === g.gid).map((u) => u.name) }));
    const page = paginate(rows, params.limit, params.cursor, `groups:${params.name ?? ""}`);
    return { groups: page.items, total: page.total, next_cursor: page.next_cursor };
  },
});
