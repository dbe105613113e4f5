import { fixedTool } from "./fixed.ts";

/** `plan_command`: judge a shell command line with the command-risk engine; no connection, no change. */
export const planCommandTool = fixedTool({
  name: "plan_command",
  method: "plan_command",
  title: "Judge command",
  description: "Risk and policy verdict on a shell line; runs nothing.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
