import { z } from "zod";
import type { DaemonClient } from "../../ipc/client.ts";
import { wireJsonSchema } from "../../ipc/json-schema.ts";
import type { ErrorBody, Outcome } from "../../ipc/protocol.ts";
import { errorResult, META_ERROR_CODE } from "../result.ts";
import type { ToolAnnotations, ToolSpec } from "../tool-spec.ts";

/** The data of a fixed tool (plan, execute, history…): schemas, annotations, groups and one daemon call. */
export interface FixedToolDef<I extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: z.ZodType;
  annotations: ToolAnnotations;
  toolsets: readonly string[];
  call(client: DaemonClient, args: z.infer<I>): Promise<Outcome<unknown>>;
  /**
   * When a successful daemon answer still means the call achieved nothing (e.g. every execute step refused),
   * the error to flag: the result is then `isError: true` with its structuredContent kept (it matches the
   * outputSchema) and the code in `_meta`.
   */
  failure?(value: unknown): ErrorBody | null;
}


/**
 * Builds a ToolSpec from a fixed tool's data. Arguments are checked against the input schema here only to
 * give the model a precise `invalid_params` result; the daemon validates again and decides everything else.
 */
export function fixedTool<I extends z.ZodType>(def: FixedToolDef<I>): ToolSpec {
  // JSON Schemas are built on first use (the first tools/list), not at import: start-up time matters.
  let input: Record<string, unknown> | undefined;
  let output: Record<string, unknown> | undefined;
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    get inputSchema() { return (input ??= wireJsonSchema(def.input, "input")); },
    get outputSchema() { return (output ??= wireJsonSchema(def.output, "output")); },
    annotations: def.annotations,
    toolsets: def.toolsets,
    handler: async (args, client) => {
      const parsed = def.input.safeParse(args);
      if (!parsed.success) {
        return errorResult({ code: "invalid_params", message: `Invalid arguments for ${def.name}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ")}.`, hint: "The tool's inputSchema lists the accepted values." });
      }
      const r = await def.call(client, parsed.data);
      if (!r.ok) return errorResult(r.error);
      const value = r.value as Record<string, unknown>;
      const failure = def.failure?.(value) ?? null;
      const result = { content: [{ type: "text" as const, text: JSON.stringify(value) }], structuredContent: value };
      return failure ? { ...result, isError: true, _meta: { [META_ERROR_CODE]: failure.code } } : result;
    },
  };
}
