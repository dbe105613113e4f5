import type { Action } from "../core/catalogue/action.ts";
import { wireJsonSchema } from "../ipc/json-schema.ts";
import type { ActionDescriptor } from "../ipc/protocol.ts";

/** Turns a catalogue action into the descriptor the MCP front advertises (schemas via {@link wireJsonSchema}). */
export function describeAction(action: Action): ActionDescriptor {
  return {
    action: action.name,
    title: action.title,
    description: action.description,
    input_schema: wireJsonSchema(action.params, "input"),
    output_schema: wireJsonSchema(action.output, "output"),
    access: action.access,
    risk_level: action.risk_level,
    toolsets: [...action.toolsets],
    host_derived: action.host_derived,
  };
}
