import type { ExecuteResult } from "../../ipc/protocol.ts";
import { fixedTool } from "./fixed.ts";

/** `execute`: run approved transactions, each exactly once, with the receipts a human minted. */
export const executeTool = fixedTool({
  name: "execute",
  method: "execute",
  title: "Execute approved steps",
  description: "Execute planned transactions. Each step needs its transaction_id, action_name and params unchanged from plan, and the approval_receipt printed by `hostgate approve <transaction_id>` (starts with hgr_; single use; expires after 15 minutes). The daemon re-checks everything and re-computes the preview: if the host changed since approval it refuses with plan_changed. Execution halts at the first step that does not succeed.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  toolsets: ["approval"],
  // Nothing succeeded (every step refused, or the first failed and the rest were skipped): an error result.
  failure: (value) => {
    const { results } = value as ExecuteResult;
    if (results.some((r) => r.status === "succeeded")) return null;
    return results.find((r) => r.error !== null)?.error ?? { code: "nothing_executed", message: "No step was executed." };
  },
});
