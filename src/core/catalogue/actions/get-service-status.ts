import { z } from "zod";
import { defineReadOnlyAction } from "../action.ts";
import { normalizeUnitArg } from "../../systemd/unit-name.ts";
import { managerFor, unitParam, unitStateSchema, userParam } from "./systemd-schemas.ts";

/**
 * GetServiceStatus (direct tool get_service_status, toolset `systemd`): state plus service fields (type,
 * result, restarts, ExecStart, memory) of one literal .service name. Globs and invalid names are rejected
 * with invalid_unit_name before any manager call (never auto-escaped). Errors also: no_such_unit,
 * user_manager_unavailable, backend_error.
 */
export const GetServiceStatus = defineReadOnlyAction({
  name: "GetServiceStatus",
  title: "Service status",
  description: "One service's state, PID, restarts and command.",
  params: z.strictObject({ unit: unitParam, user: userParam }),
  output: unitStateSchema.extend({
    unit: z.string(),
    service_type: z.string(),
    result: z.string(),
    n_restarts: z.number().int(),
    exec_main_status: z.number().int(),
    exec_start: z.array(z.object({ path: z.string(), argv: z.array(z.string()), ignore_errors: z.boolean(), pid: z.number(), code: z.number(), status: z.number() })),
    memory_current_bytes: z.number().nullable(),
    fragment_path: z.string().nullable(),
  }),
  risk_level: "low",
  access: "read_only",
  families: "all",
  min_role: "observer",
  needs: ["systemd"],
  toolsets: ["systemd"],
  host_derived: true,
  async run(p, ctx) {
    const unit = normalizeUnitArg(p.unit, "service", { requireType: "service" });
    return managerFor(ctx.units, p.user).getServiceStatus(unit);
  },
});
