/**
 * The UnitManager port: one systemd manager (the system manager, or one user's manager). Implemented by
 * adapters/systemd-dbus.ts (real systemd over D-Bus) and adapters/systemd-mock.ts (in-memory).
 *
 * Errors (HostgateError codes): `no_such_unit` (the unit is not loaded and has no unit file: LoadState
 * not-found), `invalid_unit_name` (the name fails core/systemd/unit-name rules; checked before any I/O),
 * `backend_error` (the manager could not be reached or answered with an unexpected D-Bus error; the message
 * names the bus address), `timeout` (a job did not finish in time), `permission_denied` (the manager
 * refused: org.freedesktop.DBus.Error.AccessDenied / InteractiveAuthorizationRequired).
 */
import type { ServiceStatus, UnitDefinition, UnitListEntry, UnitState, JobOutcome } from "../core/systemd/payload.ts";
import type { ManagerRef } from "../core/systemd/uri.ts";
import type { UnitType } from "../core/systemd/unit-name.ts";

/** Filters for {@link UnitManager.listUnits}. All are ANDed; an empty or absent filter matches everything. */
export interface ListUnitsQuery {
  /** Unit types to include (e.g. ["service", "timer"]). */
  types?: readonly UnitType[];
  /** systemctl --state semantics: a unit matches when its load, active or sub state is one of these. */
  states?: readonly string[];
  /** Shell-style unit-name globs (`*`, `?`, `[...]`) as in `systemctl list-units PATTERN`. */
  patterns?: readonly string[];
}

/**
 * Which object {@link UnitManager.properties} reads: `unit` (a unit's `Unit`, `Timer`, `Service` interface of
 * org.freedesktop.systemd1) or `unit: null` (the manager's `Manager` interface: boot timestamps); or any object
 * of another service on the same bus (`destination`, object `path`, full interface name `iface`).
 */
export type PropertySource =
  | { unit: string | null; iface: "Manager" | "Unit" | "Timer" | "Service" }
  | { destination: string; path: string; iface: string };

/** Options for job-based operations. */
export interface JobOptions {
  /** How long to wait for the job's JobRemoved signal, in milliseconds. Default 30 000. */
  timeoutMs?: number;
}

/** One systemd manager. Adapters connect lazily on the first call; `close` releases the connection. */
export interface UnitManager {
  /** Which manager this is. */
  readonly ref: ManagerRef;
  /** True for the mock backend: its data is simulated, and previews and answers must say so. */
  readonly simulated?: boolean;
  /**
   * Units currently known to the manager, with `systemctl list-units --all` semantics (loaded units in
   * any state plus units referenced but not found), sorted by unit name.
   */
  listUnits(query?: ListUnitsQuery): Promise<UnitListEntry[]>;
  /** Compact runtime state of one unit. Loads the unit's state if it is not in memory. */
  getUnit(unit: string): Promise<UnitState>;
  /** Service status (unit must be a .service). */
  getServiceStatus(unit: string): Promise<ServiceStatus>;
  /** FragmentPath + DropInPaths and their text (secrets redacted). */
  getDefinition(unit: string): Promise<UnitDefinition>;
  /** StartUnit(mode replace), waiting for JobRemoved. */
  startUnit(unit: string, opts?: JobOptions): Promise<JobOutcome>;
  /** StopUnit(mode replace), waiting for JobRemoved. */
  stopUnit(unit: string, opts?: JobOptions): Promise<JobOutcome>;
  /** RestartUnit(mode replace), waiting for JobRemoved. */
  restartUnit(unit: string, opts?: JobOptions): Promise<JobOutcome>;
  /** ReloadUnit(mode replace), waiting for JobRemoved. */
  reloadUnit(unit: string, opts?: JobOptions): Promise<JobOutcome>;
  /** EnableUnitFiles(runtime=false, force=false) followed by a manager Reload. */
  enableUnitFiles(units: readonly string[]): Promise<JobOutcome>;
  /** DisableUnitFiles(runtime=false) followed by a manager Reload. */
  disableUnitFiles(units: readonly string[]): Promise<JobOutcome>;
  /**
   * MaskUnitFiles(runtime=false, force=false) followed by a manager Reload: links the unit name to /dev/null in
   * /etc/systemd/system, so nothing can start it (a running unit keeps running). `result` changed / unchanged.
   */
  maskUnitFiles(units: readonly string[]): Promise<JobOutcome>;
  /** UnmaskUnitFiles(runtime=false) followed by a manager Reload: removes the /dev/null links. */
  unmaskUnitFiles(units: readonly string[]): Promise<JobOutcome>;
  /** The manager's Reload (`systemctl daemon-reload`): re-reads every unit file and drop-in. Waits for it to finish. */
  reloadManager(): Promise<JobOutcome>;
  /** Loaded units whose files changed on disk since the manager read them (NeedDaemonReload=yes), sorted. */
  unitsNeedingReload(): Promise<string[]>;
  /**
   * THE D-Bus property reader of this manager's bus: every property of one interface of one object, as
   * {@link PropertySource} names it (a unit, the manager itself, or another service's object such as
   * org.freedesktop.timedate1). Values are plain JSON: variants unwrapped, uint64 as a number (µs for timestamps),
   * null for uint64-max ("unset"). Optional: only backends that speak D-Bus have it (absent: the action that needs
   * it answers `unavailable` or reads files instead). Errors as above; an unknown unit answers empty-ish properties
   * (systemd loads it as not-found), so callers check `LoadState`; a service not on the bus is `backend_error`.
   */
  properties?(source: PropertySource): Promise<Record<string, unknown>>;
  /** Releases the connection (idempotent). */
  close(): Promise<void>;
}

/**
 * The managers hostgate represents on one host: the system manager and zero or more user managers. This is
 * what ActionContext.units holds.
 */
export interface UnitManagerSet {
  /** The system manager. */
  readonly system: UnitManager;
  /** User names whose managers are represented (resources/list walks them), in a stable order. */
  readonly users: readonly string[];
  /** The manager of `user`; throws HostgateError `user_manager_unavailable` when not represented. */
  user(user: string): UnitManager;
  /** The manager a ManagerRef points at (see {@link user} for errors). */
  get(ref: ManagerRef): UnitManager;
  /** Closes every manager. */
  close(): Promise<void>;
}
