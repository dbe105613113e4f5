import { SkillsRefInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_inspect`: A skill's manifest, files, digest, validation problems and entrypoints (with whether each may be executed). */
export const skillsInspectTool = skillsTool({
  name: "skills_inspect",
  title: "Inspect skill",
  description: "A skill's manifest, files, problems and entrypoints.",
  input: SkillsRefInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
});
