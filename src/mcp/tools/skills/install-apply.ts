import { SkillsInstallApplyInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_install_apply`: Install exactly what skills_install_plan showed: same arguments plus its confirm token. Never runs a script. */
export const skillsInstallApplyTool = skillsTool({
  name: "skills_install_apply",
  title: "Apply install",
  description: "Install exactly what skills_install_plan showed: same arguments plus its confirm token. Never runs a script.",
  input: SkillsInstallApplyInput.omit({ session: true }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  gate: "install",
  session: true,
});
