import { z } from "zod";

/**
 * Field schemas every inventory provider kind shares (config `inventory.providers[]`). Paths are absolute or
 * start with `~/` (the daemon user's home); names and tags are short identifiers policies can match.
 */

/** An absolute path or `~/…`. */
export const pathField = z.string().min(1).refine((p) => p.startsWith("/") || p.startsWith("~/"), { error: "use an absolute path or ~/…" });
/** A backend or host name: letters, digits, `_ . -`, at most 64. */
export const nameField = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "letters, digits, '_', '.', '-' (max 64)");
/** A tag policies see. */
export const tagField = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:=-]{0,63}$/, "letters, digits and _.:=- (max 64)");

/** Settings every provider kind has. `cache_ttl` in seconds (0 = no cache); `timeout_ms` bounds one listing. */
export const commonFields = {
  name: nameField.refine((n) => n !== "literal", { error: "\"literal\" is reserved: policies see backend \"literal\" for hosts no backend lists" }).optional().describe("Backend name (default: the kind); unique; not \"literal\" (reserved for hosts no backend lists)"),
  timeout_ms: z.number().int().min(50).max(60_000).default(2000).describe("A listing slower than this is abandoned and reported as this backend's error"),
  cache_ttl: z.number().int().min(0).max(86_400).default(60).describe("Seconds a listing is reused (0: never cached)"),
  cache_dir: pathField.optional().describe("Directory where listings are also kept across restarts (default: memory only)"),
  tags: z.array(tagField).max(32).default(() => []).describe("Tags added to every host of this backend (policies see them)"),
  become: z.enum(["none", "sudo"]).optional().describe("How approved changes get root on this backend's hosts when the SSH login is not root: none (log in as root) or sudo (`sudo -n`: needs a NOPASSWD rule; hostgate never sends a password). Default none"),
};

/** The per-request override every kind accepts (`search_hosts { overrides }`). */
export const timeoutOverride = { timeout_ms: z.number().int().min(50).max(60_000).optional() };

/**
 * One inventory provider kind: its config fields (beside {@link commonFields}) and the fields a request may
 * override. Paths and sockets are never overridable (a tool must not choose which files the daemon reads).
 */
export interface ProviderDefinition<K extends string = string, F extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  kind: K;
  fields: F;
  overrides: O;
}

/** Declares a provider kind (types kept literal, so the config union and override table stay typed). */
export function defineProvider<K extends string, F extends z.ZodRawShape, O extends z.ZodRawShape>(d: ProviderDefinition<K, F, O>): ProviderDefinition<K, F, O> {
  return d;
}
