import { skillsDiagnoseTool } from "./diagnose.ts";
import { skillsExecuteTool } from "./execute.ts";
import { skillsInspectTool } from "./inspect.ts";
import { skillsInstallApplyTool } from "./install-apply.ts";
import { skillsInstallPlanTool } from "./install-plan.ts";
import { skillsReadTool } from "./read.ts";
import { skillsResolveTool } from "./resolve.ts";
import { skillsRouteTool } from "./route.ts";
import { skillsSearchTool } from "./search.ts";
import type { SkillsToolSpec } from "./skills-tool.ts";
import { skillsSyncApplyTool } from "./sync-apply.ts";
import { skillsSyncPlanTool } from "./sync-plan.ts";

/** Every skills tool (toolset `skills`); apply and execute carry the gate they need. */
export const SKILLS_TOOLS: readonly SkillsToolSpec[] = [
  skillsSearchTool, skillsRouteTool, skillsResolveTool, skillsInspectTool, skillsReadTool, skillsDiagnoseTool,
  skillsInstallPlanTool, skillsSyncPlanTool, skillsInstallApplyTool, skillsSyncApplyTool, skillsExecuteTool,
];
