import { SkillsRefInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_resolve`: Resolve name, name@version or name@sha256:… to its source and exact digest (pinned_ref). */
export const skillsResolveTool = skillsTool({
  name: "skills_resolve",
  title: "Resolve skill",
  description: "Pin a skill ref to its source and digest.",
  input: SkillsRefInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
});
