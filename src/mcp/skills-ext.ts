import { z } from "zod";
import { SKILLS_EXTENSION_ID, type SkillsExtDirectoryValue, type SkillsExtGetValue, type SkillsExtListValue } from "../ipc/skills-ext.ts";

/**
 * The MCP Skills extension (SEP-2640) as the front shows it: the capability it declares and the shapes of its
 * three methods' results, built from the daemon's answers (app/skills/extension.ts decides everything; this
 * file only renames and adds the cache hint). register.ts registers the handlers.
 */
export const SKILLS_EXTENSION_CAPABILITY = { [SKILLS_EXTENSION_ID]: { directoryRead: true } } as const;

/** Request params of `skills/list` (a paginated request) and of `skills/get` / `resources/directory/read`. */
export const ListSkillsParams = z.looseObject({ cursor: z.string().optional() });
export const GetSkillParams = z.looseObject({ uri: z.string() });
export const DirectoryReadParams = z.looseObject({ uri: z.string(), cursor: z.string().optional() });

/**
 * `ttlMs` / `cacheScope` (CacheableResult), required on results of the 2026-07-28 revision and absent before
 * it. 0 / private: the skills are this host's and this daemon's, and a folder may change at any moment.
 */
export function cacheFields(protocolVersion: string | undefined): { ttlMs?: number; cacheScope?: "private" } {
  return protocolVersion !== undefined && protocolVersion >= "2026-07-28" ? { ttlMs: 0, cacheScope: "private" } : {};
}

/** `skills/list` result from one page of the daemon's entries. */
export function listResult(v: SkillsExtListValue, protocolVersion: string | undefined): Record<string, unknown> {
  return { skills: v.skills, ...(v.next_cursor !== null ? { nextCursor: v.next_cursor } : {}), ...cacheFields(protocolVersion) };
}

/** `skills/get` result. */
export function getResult(v: SkillsExtGetValue, protocolVersion: string | undefined): Record<string, unknown> {
  return { skill: v.skill, ...cacheFields(protocolVersion) };
}

/** `resources/directory/read` result. */
export function directoryResult(v: SkillsExtDirectoryValue, protocolVersion: string | undefined): Record<string, unknown> {
  return { resources: v.resources, ...(v.next_cursor !== null ? { nextCursor: v.next_cursor } : {}), ...cacheFields(protocolVersion) };
}

/**
 * JSON-RPC code of a daemon refusal: a URI that names no skill, no directory or no file the server serves, or a
 * malformed one or cursor, is -32602 (the extension's "Error Handling"); anything else -32603.
 */
export function extensionErrorCode(code: string): number {
  return ["not_found", "invalid_uri", "invalid_skill", "invalid_params"].includes(code) ? -32602 : -32603;
}
