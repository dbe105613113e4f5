/**
 * Marks every text a model or a human reads from the mock backend as SIMULATED (issue 14): unit descriptions,
 * service status, unit-file text and job outcomes of the wrapped managers. The data underneath is the mock's
 * own; the wrapper only labels it, so it can never be mistaken for this host's units.
 */
import type { UnitManager, UnitManagerSet } from "../ports/unit-manager.ts";

/** Prefix of every simulated description. */
export const SIMULATED_MARK = "[SIMULATED]";
const FILE_BANNER = "# SIMULATED unit file from hostgate's mock systemd backend (backend.type: mock), not from this host.\n";

const mark = (s: string): string => (s.startsWith(SIMULATED_MARK) ? s : `${SIMULATED_MARK} ${s}`);

function simulated(m: UnitManager): UnitManager {
  return {
    ref: m.ref,
    simulated: true,
    listUnits: async (q) => (await m.listUnits(q)).map((u) => ({ ...u, description: mark(u.description) })),
    getUnit: async (u) => { const s = await m.getUnit(u); return { ...s, description: mark(s.description) }; },
    getServiceStatus: async (u) => { const s = await m.getServiceStatus(u); return { ...s, description: mark(s.description) }; },
    getDefinition: async (u) => { const d = await m.getDefinition(u); return { ...d, text: FILE_BANNER + d.text }; },
    startUnit: (u, o) => m.startUnit(u, o),
    stopUnit: (u, o) => m.stopUnit(u, o),
    restartUnit: (u, o) => m.restartUnit(u, o),
    reloadUnit: (u, o) => m.reloadUnit(u, o),
    enableUnitFiles: (u) => m.enableUnitFiles(u),
    disableUnitFiles: (u) => m.disableUnitFiles(u),
    maskUnitFiles: (u) => m.maskUnitFiles(u),
    unmaskUnitFiles: (u) => m.unmaskUnitFiles(u),
    reloadManager: () => m.reloadManager(),
    unitsNeedingReload: () => m.unitsNeedingReload(),
    close: () => m.close(),
  };
}

/** Wraps every manager of a (mock) set so its answers say SIMULATED. */
export function markSimulated(set: UnitManagerSet): UnitManagerSet {
  const system = simulated(set.system);
  const users = new Map(set.users.map((u) => [u, simulated(set.user(u))]));
  return {
    system,
    users: set.users,
    user: (name) => users.get(name) ?? set.user(name),
    get: (ref) => (ref.scope === "system" ? system : users.get(ref.user) ?? set.get(ref)),
    close: () => set.close(),
  };
}
