import { fixedTool } from "./fixed.ts";

/** `list_backends`: the configured inventory backends (kind, name, hint, notes). */
export const listBackendsTool = fixedTool({
  name: "list_backends",
  method: "list_backends",
  title: "Backends",
  description: "Inventories search_hosts reads and their blind spots.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
