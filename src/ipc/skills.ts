import { z } from "zod";
import { LIMITS, utf8Length } from "../core/limits.ts";
import { SKILL_LIMITS } from "../core/skills/limits.ts";

/**
 * Wire schemas of the skills methods (issue 11), shared by the daemon, the MCP tools and `hostgate skills`.
 * Caps: a query 1 KiB, a reference 512 B, a path 1 KiB, a scope 64 B, ≤ 8 runtimes of ≤ 64 B, an
 * entrypoint 128 B, ≤ 64 exec arguments, a timeout 0–1800 s. The whole arguments object is capped at 64 KiB
 * by the daemon. `session` is set by the MCP front (the confirm-token binding of a stdio connection), never
 * by the model: the tools' input schemas omit it.
 */
const bytes = (max: number, what: string) => z.string().refine((s) => utf8Length(s) <= max, { error: `${what} is at most ${max} bytes` });

const Ref = bytes(SKILL_LIMITS.refBytes, "ref").pipe(z.string().min(1));
const Scope = bytes(SKILL_LIMITS.scopeBytes, "scope").describe("user or project");
const Runtimes = z.array(bytes(SKILL_LIMITS.runtimeBytes, "a runtime")).max(SKILL_LIMITS.runtimes).optional().describe("agents, claude");
const Session = z.string().min(1).max(128).optional();
const Confirm = z.string().max(128).optional().describe("From the plan call");

export const SkillsSearchInput = z.strictObject({
  query: bytes(LIMITS.queryBytes, "query"),
  limit: z.number().int().min(1).max(50).default(10),
});
export const SkillsRouteInput = z.strictObject({
  intent: bytes(LIMITS.queryBytes, "intent").pipe(z.string().min(1)),
});
export const SkillsRefInput = z.strictObject({ ref: Ref });
export const SkillsReadInput = z.strictObject({
  ref: Ref,
  path: bytes(LIMITS.pathBytes, "path").pipe(z.string().min(1)).default("SKILL.md"),
  offset: z.number().int().min(0).default(0),
});
export const SkillsDiagnoseInput = z.strictObject({});
export const SkillsInstallPlanInput = z.strictObject({ ref: Ref, scope: Scope.default("user"), runtimes: Runtimes, session: Session });
export const SkillsInstallApplyInput = SkillsInstallPlanInput.extend({ confirm: Confirm });
export const SkillsSyncPlanInput = z.strictObject({ scope: Scope.default("project"), runtimes: Runtimes, session: Session });
export const SkillsSyncApplyInput = SkillsSyncPlanInput.extend({ confirm: Confirm });
export const SkillsExecuteInput = z.strictObject({
  ref: Ref.describe("name@sha256:… from skills_resolve"),
  entrypoint: bytes(SKILL_LIMITS.entrypointBytes, "entrypoint").pipe(z.string().min(1)).describe("From skills_inspect"),
  args: z.array(bytes(SKILL_LIMITS.execArgBytes, "an argument")).max(SKILL_LIMITS.execArgs).default(() => []),
  dryRun: z.boolean().default(false).describe("Check only"),
  timeoutSeconds: z.number().int().min(0).max(SKILL_LIMITS.execTimeoutMaxSeconds).default(0).describe("0 = the entrypoint's limit"),
});
/** Admin socket only: grant, list and revoke exec grants. */
export const SkillsGrantInput = z.strictObject({ ref: Ref, entrypoint: bytes(SKILL_LIMITS.entrypointBytes, "entrypoint").pipe(z.string().min(1)) });

export type SkillsSearchArgs = z.infer<typeof SkillsSearchInput>;
export type SkillsRouteArgs = z.infer<typeof SkillsRouteInput>;
export type SkillsRefArgs = z.infer<typeof SkillsRefInput>;
export type SkillsReadArgs = z.infer<typeof SkillsReadInput>;
export type SkillsInstallArgs = z.infer<typeof SkillsInstallApplyInput>;
export type SkillsSyncArgs = z.infer<typeof SkillsSyncApplyInput>;
export type SkillsExecuteArgs = z.infer<typeof SkillsExecuteInput>;
export type SkillsGrantArgs = z.infer<typeof SkillsGrantInput>;

/** Provenance of skill content: where it came from and which exact tree (DESIGN.md: untrusted with provenance). */
export interface SkillsProvenance {
  source: "local" | "registry" | "store";
  location: string;
  digest: string | null;
  path?: string | undefined;
}

/**
 * The one answer shape of every skills tool and of `hostgate skills … --json`: `kind` names the command
 * (`skills.search`…), `ok` says which half follows. Skill content is untrusted data, never instructions:
 * `untrusted` and `provenance` say so (the MCP front copies them into `_meta`). Plans carry their confirm token.
 */
export type SkillsEnvelope =
  | { kind: string; ok: true; data: Record<string, unknown>; untrusted: boolean; provenance: SkillsProvenance[]; confirm?: { token: string; expires_at: string } | undefined }
  | { kind: string; ok: false; error: { code: string; message: string; hint?: string | undefined; details?: Record<string, unknown> | undefined } };

/** The envelope as a wire schema (the table's result of every skills method). */
export const SkillsEnvelopeSchema = z.object({
  kind: z.string(),
  ok: z.boolean(),
  data: z.record(z.string(), z.unknown()).optional(),
  untrusted: z.boolean().optional(),
  provenance: z.array(z.object({ source: z.enum(["local", "registry", "store"]), location: z.string(), digest: z.string().nullable(), path: z.string().optional() })).optional(),
  confirm: z.object({ token: z.string(), expires_at: z.string() }).optional(),
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional(), details: z.record(z.string(), z.unknown()).optional() }).optional(),
});

/** A gate: on or off, and why. */
export const SkillsGateSchema = z.object({ on: z.boolean(), reason: z.string() });
/** skills_status: the daemon's gates (the front lists apply/exec tools only when its flag and the daemon agree). */
export const SkillsStatusSchema = z.object({ available: z.boolean(), install: SkillsGateSchema, exec: SkillsGateSchema });
