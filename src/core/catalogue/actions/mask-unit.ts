import { z } from "zod";
import { defineMutatingAction, type MutatingAction } from "../action.ts";
import { normalizeUnitArg } from "../../systemd/unit-name.ts";
import { refuseProtectedUnit } from "./protected-units.ts";
import { describeState } from "./service-job.ts";
import { jobOutcomeSchema, managerFor, unitParam, userParam } from "./systemd-schemas.ts";

const params = z.strictObject({ unit: unitParam, user: userParam });

/** MaskUnit / UnmaskUnit from one spec: mask links the unit to /dev/null in /etc (nothing can start it), unmask removes it. */
function maskAction(op: "mask" | "unmask"): MutatingAction<typeof params, typeof jobOutcomeSchema> {
  const masking = op === "mask";
  return defineMutatingAction({
    name: masking ? "MaskUnit" : "UnmaskUnit",
    title: masking ? "Mask a unit" : "Unmask a unit",
    description: masking
      ? "Masks a unit (links it to /dev/null in /etc/systemd/system): nothing can start it, a running unit keeps running. Refuses journald, dbus, PID 1's units and hostgate's own."
      : "Unmasks a unit (removes its /dev/null link); does not start or enable it.",
    params,
    output: jobOutcomeSchema,
    risk_level: masking ? "high" : "medium",
    access: "mutating",
    families: "all",
    min_role: "operator",
    needs: ["systemd"],
    toolsets: ["systemd"],
    host_derived: true,
    async preview(p, ctx) {
      const unit = normalizeUnitArg(p.unit, "service");
      if (masking) await refuseProtectedUnit(ctx, unit, "mask");
      const manager = managerFor(ctx.units, p.user);
      const current = await manager.getUnit(unit);
      const where = p.user === undefined ? "system manager" : `user manager of ${p.user}`;
      const done = masking ? current.unit_file_state === "masked" : current.unit_file_state !== "masked";
      const sim = manager.simulated ? "SIMULATED (mock systemd backend; nothing on this host changes): " : "";
      const change = done
        ? `already ${masking ? "masked" : "not masked"}; nothing to do`
        : masking ? `masked (/etc/systemd/system/${unit} → /dev/null)${current.active_state === "active" ? "; it keeps running until stopped" : ""}` : "unmasked (unit file state as before the mask)";
      return {
        summary: `${sim}${op} ${unit}${done ? " (nothing to do)" : ""}`,
        text: `${sim}${op} ${unit} (${where}): ${describeState(current)} → ${change}`,
        current,
        intended: { unit, manager: where, operation: op, unit_file_state: masking ? "masked" : done ? current.unit_file_state : "not masked", nothing_to_do: done },
      };
    },
    async apply(p, ctx) {
      const unit = normalizeUnitArg(p.unit, "service");
      if (masking) await refuseProtectedUnit(ctx, unit, "mask");
      const manager = managerFor(ctx.units, p.user);
      const outcome = masking ? await manager.maskUnitFiles([unit]) : await manager.unmaskUnitFiles([unit]);
      return { outcome, state: await manager.getUnit(unit) };
    },
  });
}

/** MaskUnit: `systemctl mask` over the manager's API (MaskUnitFiles + Reload). Risk high: a masked unit cannot start, at boot either. */
export const MaskUnit = maskAction("mask");
/** UnmaskUnit: `systemctl unmask` (UnmaskUnitFiles + Reload). */
export const UnmaskUnit = maskAction("unmask");
