import { z } from "zod";
import { defineMutatingAction } from "../action.ts";
import { accountName } from "./accounts-common.ts";
import { memberPlan } from "./group-members.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned } from "./planned-change.ts";

const params = z.object({ user: accountName, group: accountName }).strict();

/** AddGroupMember: make a local user a supplementary member of a local group (gpasswd --add); see memberPlan. */
export default defineMutatingAction({
  name: "AddGroupMember",
  title: "Add a user to a group",
  description: "Add one local user to a local group as a supplementary member (gpasswd). Adding to a privileged group (sudo, wheel, admin, root, disk, shadow, adm, docker, lxd, kvm, libvirt) is flagged in the plan with what it gives. Refuses root's primary group.",
  params,
  output: plannedApplyOutput,
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx) => renderPlanned(await memberPlan("add", p.user, p.group, ctx)),
  apply: async (p, ctx) => applyPlanned(ctx, await memberPlan("add", p.user, p.group, ctx)),
});
