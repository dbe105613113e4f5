/**
 * Daemon benchmark (issue: daemon and approval workflow). Prints one JSON object:
 * - plan_us: p50/p99 of plan (one explicit WriteFile step) over agent.sock;
 * - approve_us / execute_us: p50/p99 of approve (in-process admin client: over admin.sock an approval needs a controlling terminal since issue 12) and then execute of that small WriteFile;
 * - query_overhead_us: get_memory_usage's query through the socket client vs the in-process (embedded)
 *   client, p50 of each and the difference (target: ≤ 1000 µs added at p50).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigSchema } from "../src/config/schema.ts";
import { composeDaemon } from "../src/daemon/compose.ts";
import { serveIpc } from "../src/ipc/server.ts";
import { socketAdminClient, socketDaemonClient } from "../src/ipc/socket-client.ts";
import { testApprover } from "../test/support/approver.ts";

const N = Number(process.env.BENCH_N ?? 300);
const q = (xs: number[], p: number): number => Math.round([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!);
const time = async (f: () => Promise<unknown>): Promise<number> => { const t = performance.now(); await f(); return (performance.now() - t) * 1000; };

const dir = mkdtempSync(join(tmpdir(), "hg-bench-daemon-"));
process.env.HOSTGATE_STATE_DIR = join(dir, "state");
const d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { mode: "embedded", announce: () => undefined });
const clients = { agent: d.service.agent("bench"), admin: d.service.admin("bench", testApprover("bench")) };
const dispatcher = d.service.dispatcher;
const agentL = await serveIpc({ kind: "unix", path: join(dir, "agent.sock"), mode: 0o600 }, "agent", dispatcher);
const adminL = await serveIpc({ kind: "unix", path: join(dir, "admin.sock"), mode: 0o600 }, "admin", dispatcher);
const agent = socketDaemonClient(agentL.address);
const admin = socketAdminClient(adminL.address);

const plan: number[] = [], approve: number[] = [], exec: number[] = [];
for (let i = 0; i < N; i++) {
  const params = { path: join(dir, `f${i % 10}`), content: `v${i}\n` };
  let planned: Awaited<ReturnType<typeof agent.call<"plan">>> | undefined;
  plan.push(await time(async () => { planned = await agent.call("plan", { steps: [{ action: "WriteFile", params }] }); }));
  if (!planned?.ok) throw new Error(JSON.stringify(planned));
  const step = planned.value.steps[0]!;
  let receipt = "";
  approve.push(await time(async () => { const a = await clients.admin.call("approve", { transaction_id: step.transaction_id }); if (!a.ok) throw new Error(a.error.message); receipt = a.value.receipt; }));
  exec.push(await time(async () => {
    const r = await agent.call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params, approval_receipt: receipt }] });
    if (!r.ok || r.value.results[0]!.status !== "succeeded") throw new Error(JSON.stringify(r));
  }));
}
const viaSocket: number[] = [], inProcess: number[] = [];
for (let i = 0; i < 50; i++) { await agent.call("query", { action: "GetMemoryUsage", args: {} }); await clients.agent.call("query", { action: "GetMemoryUsage", args: {} }); }
for (let i = 0; i < N * 3; i++) {
  viaSocket.push(await time(() => agent.call("query", { action: "GetMemoryUsage", args: {} })));
  inProcess.push(await time(() => clients.agent.call("query", { action: "GetMemoryUsage", args: {} })));
}
await agent.close(); await admin.close(); await agentL.close(); await adminL.close(); await d.close();
console.log(JSON.stringify({
  bench: "daemon",
  iterations: N,
  plan_us: { p50: q(plan, 0.5), p99: q(plan, 0.99) },
  approve_us: { p50: q(approve, 0.5), p99: q(approve, 0.99) },
  execute_us: { p50: q(exec, 0.5), p99: q(exec, 0.99) },
  query_overhead_us: { socket_p50: q(viaSocket, 0.5), in_process_p50: q(inProcess, 0.5), added_p50: q(viaSocket, 0.5) - q(inProcess, 0.5), target_added_p50: 1000 },
}));
