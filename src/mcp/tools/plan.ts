import { fixedTool } from "./fixed.ts";

/** `plan`: propose changes as risk-labelled transactions with exact previews. Nothing runs. */
export const planTool = fixedTool({
  name: "plan",
  method: "plan",
  title: "Plan a change",
  description: "Turn an intent (e.g. \"restart nginx\") or explicit catalogue steps ({steps:[{action, params}]}) into transactions, each with a risk level, an exact preview of what would change, and a preview_hash. Nothing is executed. Then STOP: show the steps to the user; a human approves each one in a terminal with `hostgate approve <transaction_id>`, which prints a one-time receipt. A chat reply such as \"yes\" is not a receipt.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  toolsets: ["approval"],
});
