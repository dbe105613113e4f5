import { SkillsRefInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_resolve`: Resolve name, name@version or name@sha256:… to its source and exact digest (pinned_ref). */
export const skillsResolveTool = skillsTool({
  name: "skills_resolve",
  title: "Resolve a skill reference",
  description: "Resolve name, name@version or name@sha256:… to its source and exact digest (pinned_ref).",
  input: SkillsRefInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
});
