import { z } from "zod";

/** Wire schemas of the passkey admin methods (issue 23; app/passkeys.ts). */

/** `passkeys_list`: no params. */
export const PasskeysListInputSchema = z.object({}).strict();
/** The active passkeys, oldest first: credential id (base64url), name, enrollment and last use (ISO 8601), who enrolled it (audit chain). */
export const PasskeysListResultSchema = z.object({
  passkeys: z.array(z.object({
    credential_id: z.string(), name: z.string(), created_at: z.string(), last_used_at: z.string().nullable(),
    /** Who enrolled it, from the audit chain's `passkey.enrolled` entry (e.g. "uid 1000 (admin socket)"); null: no entry. */
    enrolled_by: z.string().nullable().optional(),
    /** That entry's seq. */
    enrolled_seq: z.number().nullable().optional(),
    /** The credential id of the passkey that vouched for this one (null: the first passkey). */
    vouched_by: z.string().nullable().optional(),
  })),
});
export type PasskeysListResult = z.infer<typeof PasskeysListResultSchema>;
/** `passkeys_revoke`: one credential id as `hostgate console passkeys` lists it. */
export const PasskeysRevokeInputSchema = z.object({ credential_id: z.string().min(1).max(1024).regex(/^[A-Za-z0-9_-]+$/, "a credential id is base64url, as `hostgate console passkeys` lists it") }).strict();
export const PasskeysRevokeResultSchema = z.object({ credential_id: z.string(), revoked: z.literal(true) });
export type PasskeysRevokeResult = z.infer<typeof PasskeysRevokeResultSchema>;
