import { fixedTool } from "./fixed.ts";

/** `doctor`: daemon connectivity, planner, backend, state store and a quick audit-chain check. */
export const doctorTool = fixedTool({
  name: "doctor",
  method: "doctor",
  title: "Check hostgate",
  description: "Check daemon connectivity, the planner configuration, the systemd backend selection (real or mock), the transaction store and the audit chain (quick hash-only check). Read-only.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolsets: ["audit"],
});
