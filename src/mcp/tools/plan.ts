import { fixedTool } from "./fixed.ts";

/** `plan`: propose changes as risk-labelled transactions with exact previews. Nothing runs. */
export const planTool = fixedTool({
  name: "plan",
  method: "plan",
  title: "Plan",
  description: "Preview changes from an intent or catalogue steps (find_actions gives each action's params). Then stop: a human runs `hostgate approve <plan_id>` once for the whole plan; a chat \"yes\" is not approval.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
});
