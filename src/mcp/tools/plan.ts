import { fixedTool } from "./fixed.ts";

/** `plan`: propose changes as risk-labelled transactions with exact previews. Nothing runs. */
export const planTool = fixedTool({
  name: "plan",
  method: "plan",
  title: "Plan",
  description: "Preview changes from an intent or catalogue steps. Then stop: a human must run `hostgate approve <transaction_id>`; a chat \"yes\" is not approval.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
});
