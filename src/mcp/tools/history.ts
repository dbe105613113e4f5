import { fixedTool } from "./fixed.ts";

/** `history`: what was planned, approved, refused and run, read from the audit chain. */
export const historyTool = fixedTool({
  name: "history",
  method: "history",
  title: "Change history",
  description: "Recent entries of the signed audit chain, newest first: plans, approvals, rejections, refusals and execution results, filtered by status (planned, approved, rejected, executing, succeeded, failed, unknown, refused), action name, and since (ISO time). Read-only.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolsets: ["audit"],
});
