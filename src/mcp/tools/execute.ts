import type { ExecuteResult } from "../../ipc/protocol.ts";
import { fixedTool } from "./fixed.ts";

/** `execute`: run approved transactions, each exactly once and in plan order, with the plan's receipt a human minted. */
export const executeTool = fixedTool({
  name: "execute",
  method: "execute",
  title: "Execute",
  description: "Run a plan's steps, unchanged and in order, with the one receipt `hostgate approve <plan_id>` printed.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  // Nothing succeeded (every step refused, or the first failed and the rest were skipped): an error result.
  failure: (value) => {
    const { results } = value as ExecuteResult;
    if (results.some((r) => r.status === "succeeded")) return null;
    return results.find((r) => r.error !== null)?.error ?? { code: "nothing_executed", message: "No step was executed." };
  },
});
