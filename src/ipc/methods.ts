import { z } from "zod";
import type { AdminClient, DaemonClient } from "./client.ts";
import { ExecuteInputSchema, HistoryInputSchema, PlanInputSchema, QueryParamsSchema, TxIdInputSchema } from "./protocol.ts";

/**
 * The daemon protocol's methods: one zod schema for the params of each, and the client call it maps to.
 * `agent` methods are served on agent.sock (and tcp://); `admin` methods only on admin.sock, so a receipt can
 * never be minted through the socket the MCP front uses.
 */
export const AGENT_METHODS = {
  describe: { params: z.object({}).strict().optional(), call: (c: DaemonClient) => c.describe() },
  query: { params: QueryParamsSchema, call: (c: DaemonClient, p: z.infer<typeof QueryParamsSchema>) => c.query(p.action, p.args) },
  plan: { params: PlanInputSchema, call: (c: DaemonClient, p: z.infer<typeof PlanInputSchema>) => c.plan(p) },
  execute: { params: ExecuteInputSchema, call: (c: DaemonClient, p: z.infer<typeof ExecuteInputSchema>) => c.execute(p) },
  history: { params: HistoryInputSchema, call: (c: DaemonClient, p: z.infer<typeof HistoryInputSchema>) => c.history(p) },
  doctor: { params: z.object({}).strict().optional(), call: (c: DaemonClient) => c.doctor() },
  audit_verify: { params: z.object({ since_seq: z.number().int().min(0).optional() }).strict(), call: (c: DaemonClient, p: { since_seq?: number | undefined }) => c.auditVerify(p) },
  plan_command: { params: z.unknown(), call: (c: DaemonClient, p: unknown) => c.planCommand(p) },
  resources_list: { params: z.object({}).strict().optional(), call: (c: DaemonClient) => c.listResources() },
  resource_templates_list: { params: z.object({}).strict().optional(), call: (c: DaemonClient) => c.listResourceTemplates() },
  resource_read: { params: z.object({ uri: z.string().min(1).max(2048) }).strict(), call: (c: DaemonClient, p: { uri: string }) => c.readResource(p.uri) },
} as const;

export const ADMIN_METHODS = {
  show: { params: TxIdInputSchema, call: (c: AdminClient, p: z.infer<typeof TxIdInputSchema>) => c.show(p.transaction_id) },
  approve: { params: TxIdInputSchema.extend({ expected_preview_hash: z.string().max(128).optional() }), call: (c: AdminClient, p: { transaction_id: string; expected_preview_hash?: string | undefined }) => c.approve(p.transaction_id, p.expected_preview_hash) },
  reject: { params: TxIdInputSchema, call: (c: AdminClient, p: z.infer<typeof TxIdInputSchema>) => c.reject(p.transaction_id) },
} as const;

export type AgentMethod = keyof typeof AGENT_METHODS;
export type AdminMethod = keyof typeof ADMIN_METHODS;
