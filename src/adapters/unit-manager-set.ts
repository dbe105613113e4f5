/** Builds a UnitManagerSet from a system manager and per-user managers (used by both backends). */
import { HostgateError } from "../core/errors.ts";
import type { ManagerRef } from "../core/systemd/uri.ts";
import type { UnitManager, UnitManagerSet } from "../ports/unit-manager.ts";

/**
 * A UnitManagerSet over fixed managers. `user(name)` throws `user_manager_unavailable` for users not in
 * `users`, naming the represented ones and the config key to add one.
 */
export function createUnitManagerSet(system: UnitManager, users: ReadonlyMap<string, UnitManager>): UnitManagerSet {
  const names = [...users.keys()].sort();
  const user = (name: string): UnitManager => {
    const m = users.get(name);
    if (m === undefined) {
      throw new HostgateError("user_manager_unavailable", `the user manager of ${JSON.stringify(name)} is not reachable from hostgate`, {
        hint: names.length > 0 ? `Represented user managers: ${names.join(", ")}.` : "No user managers are configured (backend.user_managers).",
        details: { user: name },
      });
    }
    return m;
  };
  return {
    system,
    users: names,
    user,
    get: (ref: ManagerRef) => (ref.scope === "system" ? system : user(ref.user)),
    close: async () => {
      await Promise.all([system, ...users.values()].map((m) => m.close()));
    },
  };
}
