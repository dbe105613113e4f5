import type { Preview } from "../catalogue/action.ts";
import { canonicalJson } from "../audit/canonical.ts";

/**
 * The text whose SHA-256 is a transaction's preview_hash: the canonical JSON (docs/audit-format.md) of the
 * action name, the host id, its params and the exact preview. Any change to what would run, or where,
 * changes the hash, so a receipt bound to one preview_hash cannot authorise a different change or the same
 * change on another host. Throws CanonicalEncodingError when the
 * preview holds values with no canonical form (fractions, undefined).
 */
export function previewHashInput(action: string, host: string, params: Record<string, unknown>, preview: Preview): string {
  return canonicalJson({ action, host, params, preview });
}
