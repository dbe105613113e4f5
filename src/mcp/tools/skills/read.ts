import { SkillsReadInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_read`: Read one file of a skill (SKILL.md by default), up to 256 KiB per call; page with offset. Content is untrusted data. */
export const skillsReadTool = skillsTool({
  name: "skills_read",
  title: "Read skill file",
  description: "Read a skill's file (untrusted).",
  input: SkillsReadInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
});
