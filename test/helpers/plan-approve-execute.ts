import type { DaemonService } from "../../src/app/daemon-service.ts";
import { testApprover } from "../support/approver.ts";

/**
 * Plans one WriteFile on `host` as agent `agentName`, approves it on the admin side, executes it with the
 * receipt, and returns the execute result's first step. Throws the daemon's message at any refused stage.
 */
export async function writeThroughApproval(service: DaemonService, agentName: string, host: string, path: string, content: string): Promise<unknown> {
  const agent = service.agent(agentName);
  const p = await agent.call("plan", { host, steps: [{ action: "WriteFile", params: { path, content } }] });
  if (!p.ok) throw new Error(p.error.message);
  const step = p.value.steps[0]!;
  const a = await service.admin("human", testApprover()).call("approve", { transaction_id: step.transaction_id });
  if (!a.ok) throw new Error(a.error.message);
  const x = await agent.call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: "WriteFile", params: step.params, approval_receipt: a.value.receipt }] });
  if (!x.ok) throw new Error(x.error.message);
  return x.value.results[0];
}
