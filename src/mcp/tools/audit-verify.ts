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
  title: "Verify the audit chain",
  description: "Verify the signed audit chain (hashes, Ed25519 signatures, order, and truncation against signed checkpoints), fully or from since_seq. Answers intact (checked against the key pinned outside the state directory, its head covered by a checkpoint copied outside it), unanchored (every entry checks out but nothing outside the state directory proves its end: reason and how far outside evidence reaches), broken (reason and first offending seq) or cannot_verify (why). Read-only.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  toolsets: ["audit"],
});
