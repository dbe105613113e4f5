import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { managerFor, uriOrNull, unitRowSchema, userParam } from "./systemd-schemas.ts";

/**
 * ListFailedUnits (direct tool list_failed_units, toolset `systemd`): units in the failed state, any type
 * (`systemctl list-units --failed`); `uri` is null for types that are not represented as resources.
 */
export const ListFailedUnits = defineReadOnlyAction({
  name: "ListFailedUnits",
  title: "Failed units",
  description: "Units in failed state.",
  params: z.strictObject({ user: userParam }),
  output: z.object({ units: z.array(unitRowSchema) }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  needs: ["systemd"],
  toolsets: ["systemd"],
  host_derived: true,
  async run(p, ctx) {
    const manager = managerFor(ctx.units, p.user);
    const rows = await manager.listUnits({ states: ["failed"] });
    return {
      units: rows.map((r) => ({ uri: uriOrNull(manager.ref, r.unit), ...r })),
    };
  },
});
