import { fixedTool } from "./fixed.ts";

/** `doctor`: daemon connectivity, planner, backend, state store and a quick audit-chain check. */
export const doctorTool = fixedTool({
  name: "doctor",
  method: "doctor",
  title: "Doctor",
  description: "Diagnose hostgate when tools fail.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
