import { z } from "zod";

/**
 * The daemon protocol: what the MCP front may ask the daemon and the shapes of the answers. The same
 * schemas serve the in-process (embedded) client and the socket client, so the two are interchangeable.
 * Bump PROTOCOL_VERSION on any incompatible change.
 */
export const PROTOCOL_VERSION = 1;

export const RiskLevelSchema = z.enum(["low", "medium", "high", "critical"]);
export const AccessSchema = z.enum(["read_only", "mutating"]);

/** A catalogue action as the front sees it: enough to advertise a direct tool, nothing to run it. */
export const ActionDescriptorSchema = z.object({
  action: z.string(),
  title: z.string(),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()),
  output_schema: z.record(z.string(), z.unknown()),
  access: AccessSchema,
  risk_level: RiskLevelSchema,
  toolsets: z.array(z.string()),
  host_derived: z.boolean(),
});
export type ActionDescriptor = z.infer<typeof ActionDescriptorSchema>;

export const DescribeResultSchema = z.object({
  protocol_version: z.number(),
  host: z.object({ hostname: z.string(), family: z.string() }),
  actions: z.array(ActionDescriptorSchema),
});
export type DescribeResult = z.infer<typeof DescribeResultSchema>;

/** Provenance of host-derived data (DESIGN.md: results carry `_meta` with an untrusted flag and provenance). */
export const ProvenanceSchema = z.object({
  host: z.string(),
  action: z.string(),
  at: z.string(),
  duration_ms: z.number(),
  untrusted: z.boolean(),
  redactions: z.number(),
});

export const ErrorBodySchema = z.object({ code: z.string(), message: z.string(), hint: z.string().optional() });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const QueryParamsSchema = z.object({ action: z.string().min(1).max(128), args: z.unknown() });
export const QueryResultSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), data: z.record(z.string(), z.unknown()), meta: ProvenanceSchema }),
  z.object({ ok: z.literal(false), error: ErrorBodySchema }),
]);
export type QueryResult = z.infer<typeof QueryResultSchema>;
