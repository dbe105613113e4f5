/**
 * The systemd backend of a host whose PID 1 is not systemd, when the config names no backend: every call
 * answers `unavailable` with the reason and what to do, instead of inventing units (issue 14: simulated data
 * is never passed off as real). The mock backend runs only when `backend.type: mock` names it.
 */
import { HostgateError } from "../core/errors.ts";
import type { ManagerRef } from "../core/systemd/uri.ts";
import type { UnitManager, UnitManagerSet } from "../ports/unit-manager.ts";

/** The error every call returns; `reason` says what PID 1 is. */
export function systemdUnavailable(reason: string): HostgateError {
  return new HostgateError("unavailable", `systemd is not available on this host (${reason}), so hostgate has no unit data here.`, {
    hint: "Use the host, logs and packages tools instead. To try the systemd tools on simulated units, set backend.type: mock in the config (every answer is then marked SIMULATED); to reach a real manager elsewhere, set backend.type: dbus and backend.bus_address.",
  });
}

class UnavailableUnitManager implements UnitManager {
  constructor(readonly ref: ManagerRef, private readonly reason: string) {}
  private fail(): Promise<never> { return Promise.reject(systemdUnavailable(this.reason)); }
  listUnits(): Promise<never> { return this.fail(); }
  getUnit(): Promise<never> { return this.fail(); }
  getServiceStatus(): Promise<never> { return this.fail(); }
  getDefinition(): Promise<never> { return this.fail(); }
  startUnit(): Promise<never> { return this.fail(); }
  stopUnit(): Promise<never> { return this.fail(); }
  restartUnit(): Promise<never> { return this.fail(); }
  reloadUnit(): Promise<never> { return this.fail(); }
  enableUnitFiles(): Promise<never> { return this.fail(); }
  disableUnitFiles(): Promise<never> { return this.fail(); }
  maskUnitFiles(): Promise<never> { return this.fail(); }
  unmaskUnitFiles(): Promise<never> { return this.fail(); }
  reloadManager(): Promise<never> { return this.fail(); }
  unitsNeedingReload(): Promise<never> { return this.fail(); }
  /** Present so an action that reads properties (ListTimers, GetBootTiming) says systemd is absent, not "no D-Bus properties". */
  properties(): Promise<never> { return this.fail(); }
  close(): Promise<void> { return Promise.resolve(); }
}

/** A UnitManagerSet with no user managers whose system manager answers `unavailable` to everything. */
export function createUnavailableUnitManagers(reason: string): UnitManagerSet {
  const system = new UnavailableUnitManager({ scope: "system" }, reason);
  return {
    system,
    users: [],
    user: () => { throw systemdUnavailable(reason); },
    get: () => system,
    close: () => Promise.resolve(),
  };
}
