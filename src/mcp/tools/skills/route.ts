import { SkillsRouteInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_route`: Pick the best runbook for a problem described in the user's words; answers the skill, a score and which words matched. */
export const skillsRouteTool = skillsTool({
  name: "skills_route",
  title: "Route skill",
  description: "Pick the best runbook for a problem.",
  input: SkillsRouteInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
