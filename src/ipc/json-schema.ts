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
  return s.type === "object" ? s : (mergeExclusiveUnion(s) ?? { type: "object", properties: {}, ...s });
}

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * `anyOf` of closed objects that differ only by one required key each (plan: `{intent, host}` | `{steps, host}`)
 * as one closed object whose properties are the union and `oneOf` of the required keys. Same instances are
 * valid: an option accepts x iff x has its key, no other option's key, and only shared properties besides;
 * the merged schema accepts x iff exactly one key is present and the other properties are known. Shared
 * properties must be equal in every option. Any other union is left as it is (undefined).
 */
function mergeExclusiveUnion(s: JsonObject): JsonObject | undefined {
  const options = s.anyOf;
  if (Object.keys(s).length !== 1 || !Array.isArray(options) || options.length < 2) return undefined;
  const keys: string[] = [];
  const shared = new Map<string, string>();
  const properties: JsonObject = {};
  for (const o of options) {
    if (!isObject(o) || o.type !== "object" || o.additionalProperties !== false || !isObject(o.properties) || !Array.isArray(o.required) || o.required.length !== 1) return undefined;
    if (Object.keys(o).some((k) => !["type", "properties", "required", "additionalProperties"].includes(k))) return undefined;
    const key = o.required[0] as string;
    keys.push(key);
    const props = o.properties;
    for (const [name, schema] of Object.entries(props)) {
      if (name === key) { properties[name] = schema; continue; }
      const text = JSON.stringify(schema);
      if (shared.has(name) && shared.get(name) !== text) return undefined;
      shared.set(name, text);
      properties[name] = schema;
    }
  }
  // Each key belongs to exactly one option and is shared by none, and every option has every shared property.
  if (new Set(keys).size !== keys.length || keys.some((k) => shared.has(k))) return undefined;
  if (options.some((o) => Object.keys((o as { properties: JsonObject }).properties).length !== shared.size + 1)) return undefined;
  return { type: "object", properties, oneOf: keys.map((k) => ({ required: [k] })), additionalProperties: false };
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
