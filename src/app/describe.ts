import { z } from "zod";
import type { Action } from "../core/catalogue/action.ts";
import type { ActionDescriptor } from "../ipc/protocol.ts";

/**
 * Turns a catalogue action into the descriptor the MCP front advertises. JSON Schema comes from zod
 * (`io: "input"` so defaults appear as optional inputs). `$schema` is dropped: MCP clients assume 2020-12.
 */
export function describeAction(action: Action): ActionDescriptor {
  const json = (schema: z.ZodType, io: "input" | "output"): Record<string, unknown> => {
    const schemaJson = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
    delete schemaJson.$schema;
    return schemaJson;
  };
  return {
    action: action.name,
    title: action.title,
    description: action.description,
    input_schema: json(action.params, "input"),
    output_schema: json(action.output, "output"),
    access: action.access,
    risk_level: action.risk_level,
    toolsets: [...action.toolsets],
    host_derived: action.host_derived,
  };
}
