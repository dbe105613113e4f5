import { SkillsInstallPlanInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_install_plan`: Show what installing a skill into client folders (.agents/skills, .claude/skills) would write. Returns a confirm token for skills_install_apply. */
export const skillsInstallPlanTool = skillsTool({
  name: "skills_install_plan",
  title: "Plan install",
  description: "Preview a skill install; token for skills_install_apply.",
  input: SkillsInstallPlanInput.omit({ session: true }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  session: true,
});
