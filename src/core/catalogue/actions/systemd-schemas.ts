/** zod schemas shared by the systemd catalogue actions (wire shapes from core/systemd/payload.ts). */
import { z } from "zod";
import { SUPPORTED_UNIT_TYPES } from "../../systemd/unit-name.ts";
import type { UnitManager, UnitManagerSet } from "../../../ports/unit-manager.ts";
import { formatUnitUri } from "../../systemd/uri.ts";
import type { ManagerRef } from "../../systemd/uri.ts";

/** Optional `user` parameter: selects that user's manager instead of the system manager. */
export const userParam = z.string().min(1).max(32).optional().describe("User manager");

/** A unit argument: full name (nginx.service) or a bare name that gets .service. No globs. */
export const unitParam = z.string().min(1).max(255).describe("No globs");

/** A unit resource URI as returned by list_units. */
export const uriParam = z.string().min(1).max(1024);

/** Compact unit state (core/systemd/payload.ts UnitState). */
export const unitStateSchema = z.object({
  description: z.string(),
  load_state: z.string(),
  active_state: z.string(),
  sub_state: z.string(),
  unit_file_state: z.string(),
  main_pid: z.number().int().nullable(),
  since: z.string().nullable(),
});

/** One listed unit with its resource URI (null when the unit has no resource). */
export const unitRowSchema = z.object({
  uri: z.string().nullable(),
  unit: z.string(),
  description: z.string(),
  load_state: z.string(),
  active_state: z.string(),
  sub_state: z.string(),
});

/** A unit type represented as resources. */
export const supportedTypeSchema = z.enum(SUPPORTED_UNIT_TYPES);

/** Output of the mutating service actions: the job outcome and the state read afterwards. */
export const jobOutcomeSchema = z.object({
  outcome: z.object({
    unit: z.string(),
    operation: z.string(),
    result: z.string(),
    changes: z.array(z.object({ type: z.string(), file: z.string(), destination: z.string() })).optional(),
  }),
  state: unitStateSchema,
});

/** The manager selected by an optional user parameter. */
export function managerFor(units: UnitManagerSet, user: string | undefined): UnitManager {
  return user === undefined ? units.system : units.user(user);
}

/** The canonical URI of a listed unit, or null when it has no resource (unsupported type, unusual name). */
export function uriOrNull(ref: ManagerRef, unit: string): string | null {
  try {
    return formatUnitUri(ref, unit);
  } catch {
    return null;
  }
}
