import { SkillsSearchInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_search`: Search the host runbooks (skills) by words: ranked over name, description and body. Returns refs to read or route with. */
export const skillsSearchTool = skillsTool({
  name: "skills_search",
  title: "Search skills",
  description: "Find runbooks (skills) by keywords.",
  input: SkillsSearchInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
