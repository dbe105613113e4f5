import { z } from "zod";
import { ACTION_TOOLSETS, TOOLSETS } from "../core/toolsets.ts";
import { AccessSchema, RiskLevelSchema } from "./protocol.ts";

/**
 * Wire schemas of `find_actions` (issue 24, docs/tool-surface.md): the catalogue as the model discovers it. Every
 * filter is optional and they combine (AND); no filter lists every offered action. Bounds: `query` ≤ 64 characters,
 * `actions` ≤ 20 names (PascalCase `ListUsers` or a tool name `list_users`).
 */
export const FindActionsInputSchema = z.object({
  toolset: z.enum(TOOLSETS).optional(),
  access: z.enum(["read_only", "mutating"]).optional(),
  query: z.string().min(1).max(64).optional(),
  actions: z.array(z.string().min(1).max(128)).min(1).max(20).optional(),
}).strict();
export type FindActionsInput = z.infer<typeof FindActionsInputSchema>;

/**
 * What the find_actions tool advertises (the model-visible part of the default tools/list, so kept small): the
 * action toolsets, the access kind and the words; the daemon validates the call against the full
 * {@link FindActionsInputSchema} (bounds, `actions`) again.
 */
export const FindActionsToolInputSchema = z.object({
  toolset: z.enum(ACTION_TOOLSETS).optional(),
  access: z.enum(["read_only", "mutating"]).optional(),
  query: z.string().optional().describe("Words, e.g. \"largest files\"; any may match"),
}).strict();

/**
 * One offered action: how to call it (`call`: `read_action` with `{ action, args }` for a read, a `plan` step
 * `{ action, params }` for a change), its `params` JSON Schema (the `args` / step `params` it takes), risk and groups.
 */
export const FoundActionSchema = z.object({
  action: z.string(),
  call: z.enum(["read_action", "plan"]),
  /** A read's direct tool name (the name `tools.enable` / `tools.disable` take); absent for mutating actions. */
  tool: z.string().optional(),
  access: AccessSchema,
  title: z.string(),
  description: z.string(),
  risk_level: RiskLevelSchema,
  toolsets: z.array(z.string()),
  params: z.record(z.string(), z.unknown()),
  /** Present (false) only when the action cannot run on the daemon's own host, e.g. MaskUnit without systemd. */
  available: z.literal(false).optional(),
  /** Why it cannot run there (with `available: false`), e.g. "cannot run on this host: no systemd". */
  reason: z.string().optional(),
});
export type FoundAction = z.infer<typeof FoundActionSchema>;

/**
 * The matched actions (best first for a `query`), per toolset how many actions of each access the daemon offers (to
 * widen a search: keys are the `toolset` filter's values), and a `note` when the answer is empty (what to try) or cut
 * (how many more matched).
 */
export const FindActionsResultSchema = z.object({
  actions: z.array(FoundActionSchema),
  toolsets: z.record(z.string(), z.object({ read_only: z.number().int(), mutating: z.number().int() })),
  note: z.string().optional(),
});
export type FindActionsResult = z.infer<typeof FindActionsResultSchema>;
