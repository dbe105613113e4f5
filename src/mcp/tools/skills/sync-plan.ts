import { SkillsSyncPlanInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_sync_plan`: Show what restoring the skills pinned in the scope's lock file would write. Returns a confirm token for skills_sync_apply. */
export const skillsSyncPlanTool = skillsTool({
  name: "skills_sync_plan",
  title: "Plan sync",
  description: "Preview restoring locked skills; token for skills_sync_apply.",
  input: SkillsSyncPlanInput.omit({ session: true }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  session: true,
});
