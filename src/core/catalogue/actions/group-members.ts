import type { ActionContext } from "../action.ts";
import { HostgateError } from "../../errors.ts";
import type { GroupEntry } from "../../host/passwd.ts";
import { readAccounts, refuseProtected, userOf, type Accounts } from "./accounts-common.ts";
import type { PlannedChange } from "./planned-change.ts";

/** Groups whose members may administer the host through sudo (Debian `sudo`, Fedora/Arch `wheel`, old Ubuntu `admin`). */
export const ADMIN_GROUPS = ["sudo", "wheel", "admin"];

/**
 * Groups whose membership is root, or close to it: THE table AddGroupMember warns from (issue 24 trial, finding 5).
 * Each names what membership gives and where that is documented.
 */
export const PRIVILEGED_GROUPS: Readonly<Record<string, { gives: string; source: string }>> = {
  sudo: { gives: "runs any command as root through sudo", source: "Debian's /etc/sudoers (%sudo ALL=(ALL:ALL) ALL)" },
  wheel: { gives: "runs any command as root through sudo (and su where pam_wheel is set)", source: "Fedora/Arch /etc/sudoers (%wheel), pam_wheel(8)" },
  admin: { gives: "runs any command as root through sudo", source: "Ubuntu before 12.04, /etc/sudoers (%admin)" },
  root: { gives: "reads and writes every file group-owned by root (gid 0)", source: "group(5); files with gid 0" },
  disk: { gives: "reads and writes raw block devices, so every file on them (/etc/shadow included): root-equivalent", source: "Debian wiki SystemGroups (disk)" },
  shadow: { gives: "reads /etc/shadow: every account's password hash", source: "Debian wiki SystemGroups (shadow), shadow(5)" },
  adm: { gives: "reads system logs under /var/log (which can hold secrets)", source: "Debian wiki SystemGroups (adm)" },
  docker: { gives: "controls the Docker daemon, which runs containers as root with the host's / mounted: root-equivalent", source: "Docker docs, Linux post-install (\"The docker group grants root-level privileges\")" },
  lxd: { gives: "controls LXD, which can start a privileged container with the host's / mounted: root-equivalent", source: "LXD documentation, security (access to the LXD socket)" },
  kvm: { gives: "opens /dev/kvm to run virtual machines directly", source: "Debian wiki SystemGroups (kvm)" },
  libvirt: { gives: "controls libvirtd, which can give a VM the host's disks: root-equivalent", source: "libvirt documentation, access control (the read-write socket)" },
};

function groupOf(acc: Accounts, name: string): GroupEntry {
  const g = acc.groups.find((x) => x.name === name);
  if (!g) throw new HostgateError("not_found", `No local group ${name} in /etc/group.`, { hint: "read_action { action: \"ListGroups\" } shows the groups." });
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
    const priv = PRIVILEGED_GROUPS[group];
    const warnings = priv === undefined ? [] : [`${group} is a privileged group: ${user} ${priv.gives}. Source: ${priv.source}.`];
    return { summary: `Add ${user} to group ${group}`, current, intended: { member: true }, steps: [["gpasswd", "--add", user, group]], warnings, detail: "Takes effect at the user's next login." };
  }
  await refuseProtected(ctx, acc, user, "remove from groups");
  if (!member) return { summary: `Remove ${user} from group ${group}: nothing to do (not a member)`, current, intended: { member: false }, steps: [] };
  if (ADMIN_GROUPS.includes(group) && admins(acc, { user, group }).length === 0) {
    throw new HostgateError("invalid_params", `Removing ${user} from ${group} would leave no member in any administrators' group (${ADMIN_GROUPS.join(", ")}), so no one could use sudo.`, { hint: "Add another administrator first (AddGroupMember), then remove this one." });
  }
  return { summary: `Remove ${user} from group ${group}`, current, intended: { member: false }, steps: [["gpasswd", "--delete", user, group]], detail: "Running sessions keep the group until they end." };
}
