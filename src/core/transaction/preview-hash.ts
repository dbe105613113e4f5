import type { Preview } from "../catalogue/action.ts";
import { canonicalJson } from "../audit/canonical.ts";

/**
 * The text whose SHA-256 is a transaction's preview_hash: the canonical JSON (docs/audit-format.md) of the
 * action name, the host id, its params and the exact preview. Any change to what would run, or where,
 * changes the hash, so a receipt bound to one preview_hash cannot authorise a different change or the same
 * change on another host. `salt` (random per transaction, kept by the daemon) makes the hash a hiding
 * commitment: the model is given the hash, and the preview holds host state it may not read (a WriteFile
 * plan: the current file's sha256 and diff), so an unsalted hash would let it test guesses of a root-only
 * file's content, or whether it exists, offline against one plan (red team, issue 12). `null`: a transaction
 * from before salts (state v4), hashed as it was. Throws CanonicalEncodingError when the preview holds values
 * with no canonical form (fractions, undefined).
 */
export function previewHashInput(action: string, host: string, params: Record<string, unknown>, preview: Preview, salt: string | null): string {
  return canonicalJson(salt === null ? { action, host, params, preview } : { action, host, params, preview, salt });
}
