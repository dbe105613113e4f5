import { z } from "zod";

/**
 * A zod schema as the JSON Schema MCP advertises (`inputSchema` / `outputSchema`): `io: "input"` shows defaults
 * as optional inputs; `$schema` is dropped (clients assume 2020-12); a non-object schema is wrapped so the
 * result is always `type: "object"` as MCP requires. Keywords that constrain nothing are dropped to keep
 * tools/list small (issue 14, context cost): `propertyNames: {type: "string"}` (JSON object keys are always
 * strings) and `additionalProperties: {}` (the empty schema accepts anything, as an absent keyword does).
 * Validation semantics are unchanged.
 */
export function wireJsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const s = compact(z.toJSONSchema(schema, { io, unrepresentable: "any" })) as Record<string, unknown>;
  delete s.$schema;
  return s.type === "object" ? s : { type: "object", properties: {}, ...s };
}

const isEmptyObject = (v: unknown): boolean => typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
const isStringType = (v: unknown): boolean => typeof v === "object" && v !== null && Object.keys(v).length === 1 && (v as { type?: unknown }).type === "string";

/** A copy of a JSON Schema without the no-op keywords above; property names (under `properties`) are kept whatever they are. */
function compact(node: unknown, underProperties = false): unknown {
  if (Array.isArray(node)) return node.map((n) => compact(n));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (!underProperties && k === "propertyNames" && isStringType(v)) continue;
    if (!underProperties && k === "additionalProperties" && isEmptyObject(v)) continue;
    out[k] = compact(v, !underProperties && (k === "properties" || k === "$defs" || k === "definitions" || k === "patternProperties"));
  }
  return out;
}
