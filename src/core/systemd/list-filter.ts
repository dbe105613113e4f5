/** Applies list-units filters (types, states, patterns) to list entries; shared by both adapters. */
import { globMatch } from "./glob.ts";
import type { UnitListEntry } from "./payload.ts";

/** Filter shape (same as ports ListUnitsQuery, restated here because core does not import ports). */
export interface UnitFilter {
  types?: readonly string[];
  states?: readonly string[];
  patterns?: readonly string[];
}

/** True when `e` passes every non-empty filter: type suffix, any of load/active/sub state, any glob. */
export function matchesUnitFilter(e: UnitListEntry, f: UnitFilter): boolean {
  if (f.types !== undefined && f.types.length > 0) {
    const t = e.unit.slice(e.unit.lastIndexOf(".") + 1);
    if (!f.types.includes(t)) return false;
  }
  if (f.states !== undefined && f.states.length > 0) {
    if (!f.states.includes(e.load_state) && !f.states.includes(e.active_state) && !f.states.includes(e.sub_state)) return false;
  }
  if (f.patterns !== undefined && f.patterns.length > 0) {
    if (!f.patterns.some((p) => globMatch(p, e.unit))) return false;
  }
  return true;
}

/** Sorts entries by unit name (code-unit order, like systemctl). */
export function sortEntries(entries: UnitListEntry[]): UnitListEntry[] {
  return entries.sort((a, b) => (a.unit < b.unit ? -1 : a.unit > b.unit ? 1 : 0));
}
