import { FindActionsToolInputSchema } from "../../ipc/find-actions.ts";
import { fixedTool } from "./fixed.ts";

/**
 * `find_actions` (issue 24, docs/tool-surface.md): the catalogue's discovery tool. Reads not listed as direct tools
 * and every change are found here with their parameter schemas; the next call is `read_action` or `plan`.
 */
export const findActionsTool = fixedTool({
  name: "find_actions",
  method: "find_actions",
  title: "Find actions",
  description: "Catalogue actions (users, timers, mounts, sysctl, firewall, certs, updates, changes…) with params. Run reads via read_action; changes via plan.",
  input: FindActionsToolInputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
