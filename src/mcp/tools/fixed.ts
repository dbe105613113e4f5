import type { z } from "zod";
import type { DaemonClient } from "../../ipc/client.ts";
import { toolWireSchemas } from "../../ipc/prebuilt.ts";
import { METHODS, type AgentMethod, type MethodDef, type ParamsIn } from "../../ipc/methods.ts";
import type { ErrorBody } from "../../ipc/protocol.ts";
import { errorResult, META_ERROR_CODE, META_PROVENANCE, META_UNTRUSTED } from "../result.ts";
import type { ToolAnnotations, ToolSpec } from "../tool-spec.ts";
import type { ToolExposure } from "../../core/toolsets.ts";
import { describeIssues } from "../../core/errors.ts";

/**
 * The data of a daemon-backed tool (plan, execute, history…): the daemon method it calls (ipc/methods.ts) and
 * annotations. Its input and output schemas are the method's params and result unless given; its exposure groups
 * and off-by-default switch are the method entry's `tool` (so the daemon applies the same exposure rule).
 */
export interface FixedToolDef<M extends AgentMethod> {
  name: string;
  title: string;
  description: string;
  method: M;
  /** Default: the method's params schema. */
  input?: z.ZodType;
  /** Default: the method's result schema. */
  output?: z.ZodType;
  annotations: ToolAnnotations;
  /**
   * When a successful daemon answer still means the call achieved nothing (e.g. every execute step refused),
   * the error to flag: the result is then `isError: true` with its structuredContent kept (it matches the
   * outputSchema) and the code in `_meta`.
   */
  failure?(value: unknown): ErrorBody | null;
  /**
   * When the daemon answers an error whose `details` the success shape can carry (exec_on_host: a refusal's
   * decision), that value: it becomes the error result's structuredContent only if it parses with the output
   * schema (so clients that validate it against the outputSchema accept it); null for none.
   */
  errorContent?(error: ErrorBody): unknown;
  /**
   * The method's answer carries `meta`, the provenance of host-derived output (ipc/protocol.ts ProvenanceSchema, or
   * null): it is taken out of structuredContent and set as `_meta` `dev.hostgate/provenance` (and `untrusted`), as
   * for read-only answers. The tool's `output` schema then describes the answer without `meta`.
   */
  provenance?: boolean;
}

/**
 * Builds a ToolSpec from a fixed tool's data. Arguments are checked against the input schema here only to
 * give the model a precise `invalid_params` result; the daemon validates again and decides everything else.
 * Throws (at import) when the method entry has no `tool` exposure or its `read_only` disagrees with `readOnlyHint`.
 */
export function fixedTool<M extends AgentMethod>(def: FixedToolDef<M>): ToolSpec {
  const entry: MethodDef = METHODS[def.method];
  const exposure = toolExposureOf(def.method, def.annotations);
  const inputSchema: z.ZodType = def.input ?? entry.params;
  const outputSchema: z.ZodType = def.output ?? entry.result;
  const schemas = toolWireSchemas(def.name, inputSchema, outputSchema);
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    get inputSchema() { return schemas.input(); },
    get outputSchema() { return schemas.output(); },
    annotations: def.annotations,
    toolsets: exposure.toolsets,
    ...(exposure.off_by_default !== undefined ? { off_by_default: exposure.off_by_default } : {}),
    method: def.method,
    handler: async (args, client: DaemonClient, ctx) => {
      const parsed = inputSchema.safeParse(args);
      if (!parsed.success) {
        return errorResult({ code: "invalid_params", message: `Invalid arguments for ${def.name}: ${describeIssues(parsed.error, "arguments")}.`, hint: entry.example ? `A valid call: ${entry.example}.` : "The tool's inputSchema lists the accepted values." });
      }
      const r = await client.call(def.method, parsed.data as ParamsIn<M>, ctx);
      if (!r.ok) {
        const parsed = def.errorContent ? outputSchema.safeParse(def.errorContent(r.error)) : null;
        return errorResult(r.error, parsed?.success ? parsed.data as Record<string, unknown> : undefined);
      }
      let value = r.value as Record<string, unknown>;
      let meta: Record<string, unknown> = {};
      if (def.provenance) {
        const { meta: provenance, ...rest } = value as { meta?: { untrusted: boolean } | null };
        value = rest;
        if (provenance) meta = { [META_UNTRUSTED]: provenance.untrusted, [META_PROVENANCE]: provenance };
      }
      const failure = def.failure?.(value) ?? null;
      const result = { content: [{ type: "text" as const, text: JSON.stringify(value) }], structuredContent: value };
      if (failure) return { ...result, isError: true, _meta: { ...meta, [META_ERROR_CODE]: failure.code } };
      return Object.keys(meta).length > 0 ? { ...result, _meta: meta } : result;
    },
  };
}

/**
 * The exposure of the tool behind `method` (ipc/methods.ts `tool`), checked against the tool's annotations: the
 * daemon hides a method by this entry, so a tool whose `readOnlyHint` says otherwise is a programming error.
 */
export function toolExposureOf(method: AgentMethod, annotations: ToolAnnotations): ToolExposure {
  const tool = (METHODS[method] as MethodDef).tool;
  if (!tool) throw new Error(`ipc/methods.ts: ${method} has no \`tool\` entry (its exposure groups); add one to offer it as a tool`);
  if (tool.read_only !== annotations.readOnlyHint) throw new Error(`ipc/methods.ts: ${method}'s tool.read_only (${tool.read_only}) disagrees with its readOnlyHint`);
  return tool;
}
