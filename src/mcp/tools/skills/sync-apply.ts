import { SkillsSyncApplyInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_sync_apply`: Restore what skills_sync_plan showed: same arguments plus its confirm token. Never runs a script. */
export const skillsSyncApplyTool = skillsTool({
  name: "skills_sync_apply",
  title: "Apply sync",
  description: "Restore what skills_sync_plan showed: same arguments plus its confirm token. Never runs a script.",
  input: SkillsSyncApplyInput.omit({ session: true }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  gate: "install",
  session: true,
});
