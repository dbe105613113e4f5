import { z } from "zod";
import { DIGEST_RE } from "../core/skills/digest.ts";

/**
 * Wire schemas of the daemon methods behind the MCP Skills extension (SEP-2640): `skills_ext_list`
 * (`skills/list`), `skills_ext_get` (`skills/get`) and `skills_ext_directory` (`resources/directory/read`).
 * Shapes follow the extension's stable specification (modelcontextprotocol/ext-skills,
 * specification/stable/skills.mdx); the daemon's own pagination field is `next_cursor` (null on the last page),
 * which the front renames to `nextCursor`. URIs are capped at 2 KiB, cursors at 1 KiB.
 */
/** The extension's identifier, the key of its capability under `capabilities.extensions`. */
export const SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills";

const Uri = z.string().min(1).max(2048);
const Cursor = z.string().min(1).max(1024).optional();

/** One file of a skill: its URI, `sha256:` + 64 lower-case hex of its raw bytes, and its size in bytes. */
export const SkillResourceEntrySchema = z.object({ uri: z.string(), digest: z.string().regex(DIGEST_RE), size: z.number().int().min(0) });

/**
 * A skill entry: the URI of its SKILL.md, the SKILL.md front matter verbatim (every key kept: `looseObject`),
 * every file with its digest, and hostgate's `_meta` (`dev.hostgate/*`: tree digest, pinned ref, version, grants).
 */
export const SkillEntrySchema = z.object({
  uri: z.string(),
  frontmatter: z.looseObject({ name: z.string(), description: z.string() }),
  resources: z.array(SkillResourceEntrySchema),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

export const SkillsExtListParams = z.strictObject({ cursor: Cursor });
export const SkillsExtListResult = z.object({ skills: z.array(SkillEntrySchema), next_cursor: z.string().nullable() });
export const SkillsExtGetParams = z.strictObject({ uri: Uri });
export const SkillsExtGetResult = z.object({ skill: SkillEntrySchema });
export const SkillsExtDirectoryParams = z.strictObject({ uri: Uri, cursor: Cursor });
/** A direct child of a directory resource: a file (its `mimeType` and `size`) or a directory (`inode/directory`). */
export const DirectoryResourceSchema = z.object({ uri: z.string(), name: z.string(), mimeType: z.string(), size: z.number().int().min(0).optional() });
export const SkillsExtDirectoryResult = z.object({ resources: z.array(DirectoryResourceSchema), next_cursor: z.string().nullable() });

export type SkillsExtListValue = z.infer<typeof SkillsExtListResult>;
export type SkillsExtGetValue = z.infer<typeof SkillsExtGetResult>;
export type SkillsExtDirectoryValue = z.infer<typeof SkillsExtDirectoryResult>;
