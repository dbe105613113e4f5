import { fixedTool } from "./fixed.ts";

/** `history`: what was planned, approved, refused and run, read from the audit chain. */
export const historyTool = fixedTool({
  name: "history",
  method: "history",
  title: "History",
  description: "Past plans, approvals and executions.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
