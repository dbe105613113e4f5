/**
 * Shared shape of the mutating service actions (StartService … DisableService): params, preview text that
 * states the current state and the intended change, and apply (run the job, then read the state again).
 */
import { z } from "zod";
import { defineMutatingAction } from "../action.ts";
import type { MutatingAction, RiskLevel } from "../action.ts";
import { normalizeUnitArg } from "../../systemd/unit-name.ts";
import type { UnitState } from "../../systemd/payload.ts";
import type { JobOutcome } from "../../systemd/payload.ts";
import type { UnitManager } from "../../../ports/unit-manager.ts";
import { jobOutcomeSchema, managerFor, unitParam, userParam } from "./systemd-schemas.ts";

/** Params of every mutating service action: a .service unit (bare names get .service) and an optional user manager. */
export const serviceJobParams = z.strictObject({ unit: unitParam, user: userParam });
type Params = z.infer<typeof serviceJobParams>;

/** "active (running) since 2025-…Z, main PID 612, unit file enabled" */
export function describeState(s: UnitState): string {
  const parts = [`${s.active_state} (${s.sub_state})${s.since === null ? "" : ` since ${s.since}`}`];
  if (s.main_pid !== null) parts.push(`main PID ${s.main_pid}`);
  parts.push(`unit file ${s.unit_file_state || "none"}`);
  if (s.load_state !== "loaded") parts.push(`load state ${s.load_state}`);
  return parts.join(", ");
}

interface ServiceJobSpec {
  name: string;
  verb: "start" | "stop" | "restart" | "reload" | "enable" | "disable";
  title: string;
  description: string;
  risk_level: RiskLevel;
  /** What will happen, given the current state. */
  intended(s: UnitState): { text: string; intended: Record<string, unknown> };
  run(m: UnitManager, unit: string): Promise<JobOutcome>;
}

/** Builds one mutating service action from its spec (access mutating, min role operator, toolset systemd). */
export function serviceJobAction(spec: ServiceJobSpec): MutatingAction<typeof serviceJobParams, typeof jobOutcomeSchema> {
  const resolve = (p: Params) => normalizeUnitArg(p.unit, "service", { requireType: "service" });
  return defineMutatingAction({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    params: serviceJobParams,
    output: jobOutcomeSchema,
    risk_level: spec.risk_level,
    access: "mutating",
    families: "all",
    min_role: "operator",
    needs: ["systemd"],
    toolsets: ["systemd"],
    host_derived: true,
    async preview(p, ctx) {
      const unit = resolve(p);
      const manager = managerFor(ctx.units, p.user);
      const current = await manager.getUnit(unit);
      const where = p.user === undefined ? "system manager" : `user manager of ${p.user}`;
      const change = spec.intended(current);
      // The mock backend's previews say so, in what the model shows and what `hostgate approve` prints.
      const sim = manager.simulated ? "SIMULATED (mock systemd backend; nothing on this host changes): " : "";
      return {
        summary: `${sim}${spec.verb} ${unit}`,
        text: `${sim}${spec.verb} ${unit} (${where}): ${describeState(current)} → ${change.text}`,
        current,
        intended: { unit, manager: where, operation: spec.verb, ...change.intended },
      };
    },
    async apply(p, ctx) {
      const unit = resolve(p);
      const manager = managerFor(ctx.units, p.user);
      const outcome = await spec.run(manager, unit);
      return { outcome, state: await manager.getUnit(unit) };
    },
  });
}
