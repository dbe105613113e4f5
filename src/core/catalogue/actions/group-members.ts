import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import type { GroupEntry } from "../../host/passwd.ts";
import { readAccounts, refuseProtected, userOf, type Accounts } from "./accounts-common.ts";
import type { PlannedChange } from "./planned-change.ts";

/** Groups whose members may administer the host through sudo (Debian `sudo`, Fedora/Arch `wheel`, old Ubuntu `admin`). */
export const ADMIN_GROUPS = ["sudo", "wheel", "admin"];

function groupOf(acc: Accounts, name: string): GroupEntry {
  const g = acc.groups.find((x) => x.name === name);
  if (!g) throw new HostgateError("not_found", `No local group ${name} in /etc/group.`, { hint: "list_groups shows the groups." });
  return g;
}

/** Everyone in an admin group, as a supplementary member or by primary gid. */
function admins(acc: Accounts, without?: { user: string; group: string }): string[] {
  const out = new Set<string>();
  for (const g of acc.groups.filter((x) => ADMIN_GROUPS.includes(x.name))) {
    for (const m of g.members) if (!(without && without.user === m && without.group === g.name)) out.add(m);
    for (const u of acc.users) if (u.gid === g.gid) out.add(u.name);
  }
  return [...out].sort();
}

/**
 * AddGroupMember / RemoveGroupMember's plan: `gpasswd --add|--delete USER GROUP` (gpasswd(1) edits /etc/group and
 * /etc/gshadow under their locks). Refuses root's primary group (membership there reaches root-group files), a
 * group that is the user's primary group (that is usermod --gid, not membership), and removing the last member of
 * the admin groups (sudo, wheel, admin) so that no one would be left to administer the host; removal also refuses
 * root and hostgate's own user.
 */
export async function memberPlan(op: "add" | "remove", user: string, group: string, ctx: ActionContext): Promise<PlannedChange> {
  const acc = await readAccounts(ctx);
  const u = userOf(acc, user);
  const g = groupOf(acc, group);
  const rootGid = acc.users.find((x) => x.uid === 0)?.gid ?? 0;
  if (g.gid === rootGid) throw new HostgateError("invalid_params", `hostgate does not change the members of ${group}: it is root's primary group (gid ${g.gid}).`, { hint: "Membership of root's group must be changed by an administrator at the console." });
  if (u.gid === g.gid) throw new HostgateError("invalid_params", `${group} is ${user}'s primary group (gid ${g.gid}), not a supplementary membership.`, { hint: "A user's primary group is changed with usermod --gid, which hostgate does not offer." });
  const member = g.members.includes(user);
  const current = { member, members: g.members };
  if (op === "add") {
    if (member) return { summary: `Add ${user} to group ${group}: nothing to do (already a member)`, current, intended: { member: true }, steps: [] };
    const warnings = ADMIN_GROUPS.includes(group) ? [`${group} is an administrators' group: ${user} will be able to run commands as root through sudo.`] : [];
    return { summary: `Add ${user} to group ${group}`, current, intended: { member: true }, steps: [["gpasswd", "--add", user, group]], warnings, detail: "Takes effect at the user's next login." };
  }
  await refuseProtected(ctx, acc, user, "remove from groups");
  if (!member) return { summary: `Remove ${user} from group ${group}: nothing to do (not a member)`, current, intended: { member: false }, steps: [] };
  if (ADMIN_GROUPS.includes(group) && admins(acc, { user, group }).length === 0) {
    throw new HostgateError("invalid_params", `Removing ${user} from ${group} would leave no member in any administrators' group (${ADMIN_GROUPS.join(", ")}), so no one could use sudo.`, { hint: "Add another administrator first (AddGroupMember), then remove this one." });
  }
  return { summary: `Remove ${user} from group ${group}`, current, intended: { member: false }, steps: [["gpasswd", "--delete", user, group]], detail: "Running sessions keep the group until they end." };
}
