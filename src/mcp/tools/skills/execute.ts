import { SkillsExecuteInput } from "../../../ipc/skills.ts";
import { skillsTool } from "./skills-tool.ts";

/** `skills_execute`: Run an entrypoint of a digest-pinned skill that an administrator granted. Output is redacted, capped at 128 KiB a stream, untrusted. */
export const skillsExecuteTool = skillsTool({
  name: "skills_execute",
  title: "Run skill entrypoint",
  description: "Run an administrator-granted entrypoint of a digest-pinned skill; output is redacted and untrusted.",
  input: SkillsExecuteInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  gate: "exec",
});
