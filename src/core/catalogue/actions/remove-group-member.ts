import { z } from "zod";
import { defineMutatingAction } from "../action.ts";
import { accountName } from "./accounts-common.ts";
import { memberPlan } from "./group-members.ts";
import { applyPlanned, plannedApplyOutput, renderPlanned } from "./planned-change.ts";

const params = z.object({ user: accountName, group: accountName }).strict();

/** RemoveGroupMember: end a user's supplementary membership of a group (gpasswd --delete); see memberPlan. */
export default defineMutatingAction({
  name: "RemoveGroupMember",
  title: "Remove a user from a group",
  description: "Remove one local user from a local group's supplementary members (gpasswd). Refuses root, hostgate's own user, root's primary group, and removing the last sudo/wheel/admin member.",
  params,
  output: plannedApplyOutput,
  risk_level: "high",
  access: "mutating",
  families: "all",
  min_role: "operator",
  toolsets: ["accounts"],
  host_derived: true,
  needs: ["files", "mutate"],
  preview: async (p, ctx) => renderPlanned(await memberPlan("remove", p.user, p.group, ctx)),
  apply: async (p, ctx) => applyPlanned(ctx, await memberPlan("remove", p.user, p.group, ctx)),
});
