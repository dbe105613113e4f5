import { z } from "zod";
import type { CallOptions, DaemonClient } from "../../../ipc/client.ts";
import { toolWireSchemas } from "../../../ipc/prebuilt.ts";
import type { AgentMethod } from "../../../ipc/methods.ts";
import type { SkillsEnvelope } from "../../../ipc/skills.ts";
import { errorResult, META_ERROR_CODE, META_PROVENANCE, META_UNTRUSTED } from "../../result.ts";
import type { ToolAnnotations, ToolResult, ToolSpec } from "../../tool-spec.ts";
import { toolExposureOf } from "../fixed.ts";
import { describeIssues } from "../../../core/errors.ts";

/** The envelope's head as the tools advertise it; the rest (data or error) is open. */
const EnvelopeHead = z.object({ kind: z.string(), ok: z.boolean() }).loose();

/** `_meta` key of a plan's confirm token (also in the text). */
export const META_CONFIRM = "dev.hostgate/confirm";

type SkillsMethod = Extract<AgentMethod, `skills_${string}`>;

/** The data of one skills tool: the daemon method, the model-facing input schema, annotations, and the gate it needs. */
export interface SkillsToolDef {
  name: SkillsMethod;
  title: string;
  description: string;
  /** Model-facing arguments (never `session`: the front sets it). */
  input: z.ZodType;
  annotations: ToolAnnotations;
  /** Listed only when this gate is on at start (`--allow-install` / `--allow-exec` and the daemon agrees). */
  gate?: "install" | "exec";
  /** Plans and applies carry the connection's session (the confirm-token binding on stdio). */
  session?: boolean;
}

/** A skills tool with its gate, for the front's start-up filter. */
export type SkillsToolSpec = ToolSpec & { gate?: "install" | "exec" | undefined };

/**
 * Turns the skills envelope into a tool result: structuredContent is the envelope (the same JSON as
 * `hostgate skills … --json`); skill content is marked untrusted with its provenance in `_meta`; a plan's
 * confirm token is in the text and in `_meta` `dev.hostgate/confirm`; an error envelope is `isError: true`
 * with its code in `_meta`.
 */
export function envelopeResult(env: SkillsEnvelope): ToolResult {
  const text = JSON.stringify(env);
  if (!env.ok) return { content: [{ type: "text", text }], structuredContent: env, isError: true, _meta: { [META_ERROR_CODE]: env.error.code } };
  const confirm = env.confirm ? [{ type: "text" as const, text: `confirm token (single use, 5 minutes, this session and these arguments only): ${env.confirm.token}` }] : [];
  return {
    content: [{ type: "text", text }, ...confirm],
    structuredContent: env,
    _meta: { [META_UNTRUSTED]: env.untrusted, [META_PROVENANCE]: env.provenance, ...(env.confirm ? { [META_CONFIRM]: env.confirm } : {}) },
  };
}

/** Builds a skills tool: validates the model's arguments, adds the session, calls the daemon, shapes the envelope. */
export function skillsTool(def: SkillsToolDef): SkillsToolSpec {
  // A compact outputSchema: the envelope is the same for all eleven tools, and repeating its full shape in
  // tools/list costs every client context on every connection (issue 14). docs/skills.md describes it.
  const schemas = toolWireSchemas(def.name, def.input, EnvelopeHead);
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    get inputSchema() { return schemas.input(); },
    get outputSchema() { return schemas.output(); },
    annotations: def.annotations,
    toolsets: toolExposureOf(def.name, def.annotations).toolsets,
    method: def.name,
    gate: def.gate,
    handler: async (args, client: DaemonClient, ctx?: CallOptions) => {
      const parsed = def.input.safeParse(args);
      if (!parsed.success) {
        return errorResult({ code: "invalid_params", message: `Invalid arguments for ${def.name}: ${describeIssues(parsed.error, "arguments")}.`, hint: "The tool's inputSchema lists the accepted values." });
      }
      const params = { ...(parsed.data as Record<string, unknown>), ...(def.session && ctx?.session ? { session: ctx.session } : {}) };
      const r = await client.call(def.name, params, ctx);
      if (!r.ok) return errorResult(r.error);
      return envelopeResult(r.value as SkillsEnvelope);
    },
  };
}
