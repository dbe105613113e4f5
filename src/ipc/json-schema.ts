import { z } from "zod";

/**
 * A zod schema as the JSON Schema MCP advertises (`inputSchema` / `outputSchema`): `io: "input"` shows defaults
 * as optional inputs; `$schema` is dropped (clients assume 2020-12); a non-object schema is wrapped so the
 * result is always `type: "object"` as MCP requires.
 */
export function wireJsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const s = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  delete s.$schema;
  return s.type === "object" ? s : { type: "object", properties: {}, ...s };
}
