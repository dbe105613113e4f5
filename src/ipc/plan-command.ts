import { z } from "zod";
import { HostIdSchema, RiskLevelSchema } from "./protocol.ts";

/** Wire schemas of plan_command / `hostgate risk` (shared by the daemon, the MCP tool and the CLI). */

/** Wire input (snake_case). `command` ≤ 64 KiB of UTF-8, no NUL or C0 controls other than tab and newline. */
export const AssessCommandInputSchema = z.strictObject({
  command: z.string().min(1, "command is empty"),
  target: HostIdSchema.optional(),
  interpreter: z.string().max(64).optional().describe("Default bash"),
});
export type AssessCommandInput = z.infer<typeof AssessCommandInputSchema>;

const SpanSchema = z.object({ start: z.number().int(), end: z.number().int() }).describe("UTF-8 byte offsets into `command`, end exclusive.");

/** Wire output (snake_case). */
export const CommandAssessmentSchema = z.object({
  decision: z.enum(["allow", "deny", "require_approval", "require_biometric"]).describe("The policy decision (require_biometric: a plan only a passkey approval in hostgate console may approve)."),
  risk_level: RiskLevelSchema,
  reason: z.string().describe("One line: the most severe signal, or why the command is allowed."),
  signals: z.array(z.object({ id: z.string(), severity: RiskLevelSchema, reason: z.string(), span: SpanSchema })),
  commands: z.array(z.object({ name: z.string(), argv: z.array(z.string()), via: z.array(z.string()), depth: z.number().int(), dynamic: z.boolean(), span: SpanSchema })),
  target: z.string().nullable(),
  interpreter: z.string(),
  policy: z.object({ source: z.string().describe("What decided: cedar when policy.dir is configured (also without a target), else risk_engine_only (no_policy with a target)."), note: z.string() }),
});
export type CommandAssessment = z.infer<typeof CommandAssessmentSchema>;
