import { SkillsDiagnoseInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_diagnose`: Why skills or skill tools are missing: gates off, invalid skills with their errors, roots, registry reachability. */
export const skillsDiagnoseTool = skillsTool({
  name: "skills_diagnose",
  title: "Diagnose skills",
  description: "Why skills or skill tools are missing.",
  input: SkillsDiagnoseInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
});
