import { z } from "zod";
import { fixedTool } from "./fixed.ts";

const VerifyOutput = z.object({
  status: z.enum(["intact", "unanchored", "broken", "cannot_verify"]),
  anchored_seq: z.number().optional(),
  last_seq: z.number().optional(),
  checked: z.number().optional(),
  signatures_checked: z.boolean().optional(),
  reason: z.string().optional(),
  first_bad_seq: z.number().optional(),
  why: z.string().optional(),
  detail: z.string().optional(),
});

/** `audit_verify`: verify the Ed25519-signed, hash-chained audit log against its checkpoints. */
export const auditVerifyTool = fixedTool({
  name: "audit_verify",
  method: "audit_verify",
  output: VerifyOutput,
  title: "Verify audit",
  description: "Check the audit log for tampering.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
