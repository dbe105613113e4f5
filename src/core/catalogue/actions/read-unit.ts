import { z } from "zod";
import { HostgateError } from "../../errors.ts";
import { defineReadOnlyAction } from "../action.ts";
import { parseUnitUri } from "../../systemd/uri.ts";
import { unitStateSchema, uriParam } from "./systemd-schemas.ts";

/**
 * ReadUnit (tool read_unit, toolset resource_api_fallback): the compact runtime state of the unit a base
 * URI names, fresh from the manager. Errors: invalid_uri, invalid_unit_name, no_such_unit,
 * user_manager_unavailable, backend_error.
 */
export const ReadUnit = defineReadOnlyAction({
  name: "ReadUnit",
  title: "Unit state",
  description: "One unit's state by URI from list_units.",
  params: z.strictObject({ uri: uriParam }),
  output: unitStateSchema,
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  needs: ["systemd"],
  toolsets: ["resource_api_fallback"],
  host_derived: true,
  async run(p, ctx) {
    const u = parseUnitUri(p.uri);
    if (u.definition) {
      throw new HostgateError("invalid_uri", "read_unit takes the base unit URI; for the definition call read_unit_definition with the same base URI", { details: { uri: p.uri } });
    }
    return ctx.units.get(u.manager).getUnit(u.unit);
  },
});
