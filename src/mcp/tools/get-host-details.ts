import { fixedTool } from "./fixed.ts";

/** `get_host_details`: one host's record and capabilities (probe opt-in). */
export const getHostDetailsTool = fixedTool({
  name: "get_host_details",
  method: "get_host_details",
  title: "Host details",
  description: "One host's record, SSH endpoint and capabilities.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
});
