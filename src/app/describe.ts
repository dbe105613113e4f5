import type { Action, DistroFamily } from "../core/catalogue/action.ts";
import { actionsFor, CATALOGUE } from "../core/catalogue/index.ts";
import { wireJsonSchema } from "../ipc/json-schema.ts";
import { prebuilt } from "../ipc/prebuilt.ts";
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

/**
 * The descriptors of the actions a family is offered: for the built-in catalogue, the build's prebuilt
 * table when there is one (ipc/prebuilt.ts: the same values, computed at build time), else
 * {@link describeAction} of each.
 */
export function describeActions(family: DistroFamily, catalogue: readonly Action[] = CATALOGUE): ActionDescriptor[] {
  const table = catalogue === CATALOGUE ? prebuilt() : null;
  return actionsFor(family, catalogue).map((a) => table?.actions[a.name] ?? describeAction(a));
}
