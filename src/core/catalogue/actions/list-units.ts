import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { SUPPORTED_UNIT_TYPES } from "../../systemd/unit-name.ts";
import { managerFor, uriOrNull, supportedTypeSchema, unitRowSchema, userParam } from "./systemd-schemas.ts";

/**
 * ListUnits (tool list_units, toolset resource_api_fallback): units of one manager with
 * `systemctl list-units --all` semantics, restricted to the supported types, each with its resource URI.
 * Paginated by unit name: pass `next_cursor` back as `cursor`. Errors: user_manager_unavailable, backend_error.
 */
export const ListUnits = defineReadOnlyAction({
  name: "ListUnits",
  title: "Units",
  description: "systemd units with state and URI.",
  params: z.object({
    type: supportedTypeSchema.optional(),
    user: userParam,
    state: z.string().min(1).max(64).optional().describe("load, active or sub"),
    pattern: z.string().min(1).max(256).optional().describe("Glob"),
    limit: z.number().int().min(1).max(1000).default(200),
    cursor: z.string().max(256).optional(),
  }).strict(),
  output: z.object({ units: z.array(unitRowSchema), next_cursor: z.string().nullable() }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  needs: ["systemd"],
  toolsets: ["resource_api_fallback"],
  host_derived: true,
  async run(p, ctx) {
    const manager = managerFor(ctx.units, p.user);
    const rows = await manager.listUnits({
      types: p.type === undefined ? SUPPORTED_UNIT_TYPES : [p.type],
      ...(p.state === undefined ? {} : { states: [p.state] }),
      ...(p.pattern === undefined ? {} : { patterns: [p.pattern] }),
    });
    const after = p.cursor;
    const start = after === undefined ? rows : rows.filter((r) => r.unit > after);
    const page = start.slice(0, p.limit);
    return {
      units: page.map((r) => ({ uri: uriOrNull(manager.ref, r.unit), ...r })),
      next_cursor: start.length > page.length ? page[page.length - 1]!.unit : null,
    };
  },
});
