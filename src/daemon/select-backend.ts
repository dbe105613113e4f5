/**
 * Chooses the systemd backend from config (`backend.type`) and builds the UnitManagerSet lazily: no bus is
 * contacted here. `dbus` and `mock` are honoured as given; when the type is absent, dbus is chosen if PID 1
 * is systemd (/proc/1/comm), otherwise `none`: every systemd call answers `unavailable` with the reason.
 * The mock runs only when the config names it, and then its answers say SIMULATED. There is never a
 * runtime fallback from dbus to mock.
 */
import { DbusUnitManager, DEFAULT_SYSTEM_BUS } from "../adapters/systemd-dbus.ts";
import { createMockUnitManagers } from "../adapters/systemd-mock.ts";
import { markSimulated } from "../adapters/systemd-simulated.ts";
import { createUnavailableUnitManagers } from "../adapters/systemd-unavailable.ts";
import { createUnitManagerSet } from "../adapters/unit-manager-set.ts";
import type { HostProbe } from "../ports/host-probe.ts";
import type { UnitManager, UnitManagerSet } from "../ports/unit-manager.ts";

/** The `backend` config section (snake_case keys as in the YAML). */
export interface SystemdBackendConfig {
  /** `dbus` | `mock`; absent = auto (dbus when PID 1 is systemd, else none). */
  type?: "dbus" | "mock";
  /** System bus address; default unix:path=/run/dbus/system_bus_socket. */
  bus_address?: string;
  /** Root prefix for reading unit files (FragmentPath/DropInPaths); default "/". */
  file_root?: string;
  /** User managers to represent: login name + that user's bus (e.g. unix:path=/run/user/1000/bus). */
  user_managers?: { user: string; bus_address: string; file_root?: string }[];
}

/** What was selected and why. `startup_line` goes to stderr at start; `warning` too when not null. */
export interface BackendSelection {
  /** `none`: PID 1 is not systemd and no backend is configured; systemd tools answer `unavailable`. */
  type: "dbus" | "mock" | "none";
  /** "configured" or "auto: PID 1 is systemd" / "auto: PID 1 is <comm>, not systemd". */
  reason: string;
  units: UnitManagerSet;
  /** e.g. `backend=dbus (system manager at unix:path=/run/dbus/system_bus_socket)`; announces a choice, not a connection. */
  startup_line: string;
  warning: string | null;
}

async function pid1Comm(host: Pick<HostProbe, "readText">): Promise<string | null> {
  try {
    return (await host.readText("/proc/1/comm", { maxBytes: 64 })).trim();
  } catch {
    return null;
  }
}

/**
 * Why the config's systemd backend is `none` on this host (`PID 1 is "bash", not systemd`, or `/proc/1/comm is
 * unreadable`), or null when it is dbus or mock. The rule of {@link selectBackend}, without building anything;
 * reads /proc/1/comm only when `cfg.type` is absent. Also what a deferred front describes (describe-build.ts).
 */
export async function systemdUnavailableReason(cfg: SystemdBackendConfig | undefined, host: Pick<HostProbe, "readText">): Promise<string | null> {
  if (cfg?.type !== undefined) return null;
  const comm = await pid1Comm(host);
  if (comm === "systemd") return null;
  return comm === null ? "/proc/1/comm is unreadable" : `PID 1 is ${JSON.stringify(comm)}, not systemd`;
}

/** Selects and builds the backend. Reads /proc/1/comm only when `cfg.type` is absent. */
export async function selectBackend(cfg: SystemdBackendConfig | undefined, host: Pick<HostProbe, "readText">): Promise<BackendSelection> {
  let type = cfg?.type;
  let reason = "configured";
  if (type === undefined) {
    const why = await systemdUnavailableReason(cfg, host);
    if (why !== null) {
      reason = `auto: ${why === "/proc/1/comm is unreadable" ? "PID 1 is unknown (unreadable /proc/1/comm)" : why}`;
      return {
        type: "none", reason, units: createUnavailableUnitManagers(why),
        startup_line: `backend=none (${why}): the systemd tools answer unavailable`,
        warning: `hostgate: NOTE: ${why}; the systemd tools and resources answer "unavailable". Set backend.type: mock to try them on SIMULATED units, or backend.type: dbus with backend.bus_address for a real manager.`,
      };
    }
    type = "dbus";
    reason = "auto: PID 1 is systemd";
  }
  if (type === "mock") {
    const warning = "hostgate: WARNING: backend.type is mock: every systemd answer is SIMULATED (in-memory units), not this host's.";
    return { type, reason, units: markSimulated(createMockUnitManagers()), startup_line: "backend=mock (in-memory SIMULATED systemd, as configured)", warning };
  }
  const address = cfg?.bus_address ?? DEFAULT_SYSTEM_BUS;
  const system = new DbusUnitManager({ busAddress: address, fileRoot: cfg?.file_root ?? "/" });
  const users = new Map<string, UnitManager>();
  for (const u of cfg?.user_managers ?? []) {
    users.set(u.user, new DbusUnitManager({ busAddress: u.bus_address, ref: { scope: "user", user: u.user }, fileRoot: u.file_root ?? "/" }));
  }
  return {
    type, reason, units: createUnitManagerSet(system, users), warning: null,
    startup_line: `backend=dbus (system manager at ${address}${users.size > 0 ? `; user managers: ${[...users.keys()].join(", ")}` : ""})`,
  };
}
