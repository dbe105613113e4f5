/**
 * In-memory, deterministic UnitManager for development, evals and the contract tests. Seeded with a dozen
 * realistic units (adapters/systemd-mock-data.ts); jobs change state immediately and are visible in the
 * next read. Same errors as the D-Bus adapter: `invalid_unit_name`, `no_such_unit`,
 * `user_manager_unavailable`. Timestamps come from the injected clock (default: a fixed start that
 * advances one second per state change), so runs are reproducible.
 */
import { HostgateError } from "../core/errors.ts";
import { matchesUnitFilter, sortEntries } from "../core/systemd/list-filter.ts";
import { redactUnitText, usecToIso } from "../core/systemd/payload.ts";
import type { JobOutcome, ServiceStatus, UnitDefinition, UnitListEntry, UnitState } from "../core/systemd/payload.ts";
import { parseUnitName } from "../core/systemd/unit-name.ts";
import type { ManagerRef } from "../core/systemd/uri.ts";
import type { ListUnitsQuery, UnitManager, UnitManagerSet } from "../ports/unit-manager.ts";
import { systemSeed, userSeed } from "./systemd-mock-data.ts";
import type { MockUnitSeed } from "./systemd-mock-data.ts";
import { createUnitManagerSet } from "./unit-manager-set.ts";

/** Options for {@link MockUnitManager}. */
export interface MockUnitManagerOptions {
  ref?: ManagerRef;
  /** Seed units (copied). Default: the system seed. */
  units?: MockUnitSeed[];
  /** Clock in ms since the epoch for state-change timestamps. Default: deterministic counter. */
  now?: () => number;
}

/** The in-memory manager. */
export class MockUnitManager implements UnitManager {
  readonly ref: ManagerRef;
  private readonly units = new Map<string, MockUnitSeed>();
  private readonly now: () => number;
  private nextPid = 4000;
  private tick = 0;
  private readonly beforeMask = new Map<string, { file: string; load: string }>();

  constructor(opts: MockUnitManagerOptions = {}) {
    this.ref = opts.ref ?? { scope: "system" };
    for (const u of opts.units ?? systemSeed()) this.units.set(u.unit, structuredClone(u));
    this.now = opts.now ?? (() => Date.UTC(2025, 10, 30, 1, 0, 0) + 1000 * this.tick++);
  }

  private find(unit: string): MockUnitSeed {
    parseUnitName(unit);
    const u = this.units.get(unit);
    if (u === undefined || u.load_state === "not-found") {
      throw new HostgateError("no_such_unit", `unit ${unit} not found on the ${describeRef(this.ref)} (not loaded, no unit file)`, {
        hint: "Call list_units to see the units this manager knows.", details: { unit },
      });
    }
    return u;
  }

  listUnits(query: ListUnitsQuery = {}): Promise<UnitListEntry[]> {
    const rows: UnitListEntry[] = [];
    for (const u of this.units.values()) {
      const e = { unit: u.unit, description: u.description, load_state: u.load_state, active_state: u.active_state, sub_state: u.sub_state };
      if (matchesUnitFilter(e, query)) rows.push(e);
    }
    return Promise.resolve(sortEntries(rows));
  }

  async getUnit(unit: string): Promise<UnitState> {
    const u = this.find(unit);
    await Promise.resolve();
    return stateOf(u);
  }

  async getServiceStatus(unit: string): Promise<ServiceStatus> {
    if (parseUnitName(unit).type !== "service") throw new HostgateError("invalid_unit_name", `${unit} is not a .service unit`);
    const u = this.find(unit);
    await Promise.resolve();
    return {
      unit, ...stateOf(u), service_type: u.service_type ?? "simple", result: u.result ?? "success", n_restarts: u.n_restarts ?? 0,
      exec_main_status: u.exec_main_status ?? 0,
      exec_start: u.exec_start === undefined ? [] : [{ path: u.exec_start[0] ?? "", argv: u.exec_start, ignore_errors: false, pid: u.main_pid ?? 0, code: 0, status: 0 }],
      memory_current_bytes: u.memory_bytes ?? null, fragment_path: u.fragment_path,
    };
  }

  async getDefinition(unit: string): Promise<UnitDefinition> {
    const u = this.find(unit);
    await Promise.resolve();
    const dropIns = Object.keys(u.drop_ins ?? {}).sort();
    const parts: string[] = [];
    if (u.fragment_path !== null) parts.push(`# ${u.fragment_path}\n${u.text ?? ""}`);
    for (const p of dropIns) parts.push(`# ${p}\n${u.drop_ins![p]!}`);
    return { fragment_path: u.fragment_path, drop_in_paths: dropIns, ...redactUnitText(parts.join("\n")) };
  }

  private change(u: MockUnitSeed, active: string, sub: string, pid: number | null): void {
    u.active_state = active;
    u.sub_state = sub;
    u.main_pid = pid;
    u.since_usec = BigInt(this.now()) * 1000n;
  }

  private running(u: MockUnitSeed): [string, string, number | null] {
    const t = u.unit.slice(u.unit.lastIndexOf(".") + 1);
    if (t === "service") return u.service_type === "oneshot" ? ["inactive", "dead", null] : ["active", "running", this.nextPid++];
    const sub = { timer: "waiting", socket: "listening", mount: "mounted", path: "waiting", target: "active" }[t] ?? "active";
    return ["active", sub, null];
  }

  async startUnit(unit: string): Promise<JobOutcome> {
    const u = this.find(unit);
    await Promise.resolve();
    if (u.active_state !== "active") {
      const [a, s, p] = this.running(u);
      this.change(u, a, s, p);
      if (u.result !== undefined) u.result = "success";
    }
    return { unit, operation: "start", result: "done" };
  }

  async stopUnit(unit: string): Promise<JobOutcome> {
    const u = this.find(unit);
    await Promise.resolve();
    if (u.active_state !== "inactive") this.change(u, "inactive", "dead", null);
    return { unit, operation: "stop", result: "done" };
  }

  async restartUnit(unit: string): Promise<JobOutcome> {
    const u = this.find(unit);
    await Promise.resolve();
    const [a, s, p] = this.running(u);
    this.change(u, a, s, p);
    if (u.result !== undefined) u.result = "success";
    return { unit, operation: "restart", result: "done" };
  }

  async reloadUnit(unit: string): Promise<JobOutcome> {
    const u = this.find(unit);
    await Promise.resolve();
    if (u.can_reload !== true) {
      throw new HostgateError("backend_error", `Job type reload is not applicable for unit ${unit}.`, { details: { unit, dbus_error: "org.freedesktop.systemd1.JobTypeNotApplicable" } });
    }
    if (u.active_state !== "active") return { unit, operation: "reload", result: "failed" };
    return { unit, operation: "reload", result: "done" };
  }

  private setFileState(units: readonly string[], op: "enable" | "disable"): JobOutcome {
    const changes: NonNullable<JobOutcome["changes"]> = [];
    for (const name of units) {
      const u = this.find(name);
      if (u.unit_file_state !== "enabled" && u.unit_file_state !== "disabled") {
        throw new HostgateError("backend_error", `unit file ${name} is ${u.unit_file_state || "not installable"}; it cannot be ${op}d`, { details: { unit: name } });
      }
      const target = op === "enable" ? "enabled" : "disabled";
      if (u.unit_file_state === target) continue;
      u.unit_file_state = target;
      const link = `/etc/systemd/system/multi-user.target.wants/${name}`;
      changes.push(op === "enable" ? { type: "symlink", file: link, destination: u.fragment_path ?? "" } : { type: "unlink", file: link, destination: "" });
    }
    return { unit: units.join(" "), operation: op, result: changes.length > 0 ? "changed" : "unchanged", changes };
  }

  async enableUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    await Promise.resolve();
    return this.setFileState(units, "enable");
  }

  async disableUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    await Promise.resolve();
    return this.setFileState(units, "disable");
  }

  /** Mask: unit_file_state and load_state `masked`, the earlier file state kept for unmask. */
  async maskUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    await Promise.resolve();
    const changes: NonNullable<JobOutcome["changes"]> = [];
    for (const name of units) {
      const u = this.find(name);
      if (u.unit_file_state === "masked") continue;
      this.beforeMask.set(name, { file: u.unit_file_state, load: u.load_state });
      u.unit_file_state = "masked";
      u.load_state = "masked";
      changes.push({ type: "symlink", file: `/etc/systemd/system/${name}`, destination: "/dev/null" });
    }
    return { unit: units.join(" "), operation: "mask", result: changes.length > 0 ? "changed" : "unchanged", changes };
  }

  async unmaskUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    await Promise.resolve();
    const changes: NonNullable<JobOutcome["changes"]> = [];
    for (const name of units) {
      const u = this.find(name);
      if (u.unit_file_state !== "masked") continue;
      const before = this.beforeMask.get(name) ?? { file: "disabled", load: "loaded" };
      u.unit_file_state = before.file;
      u.load_state = before.load;
      changes.push({ type: "unlink", file: `/etc/systemd/system/${name}`, destination: "" });
    }
    return { unit: units.join(" "), operation: "unmask", result: changes.length > 0 ? "changed" : "unchanged", changes };
  }

  async reloadManager(): Promise<JobOutcome> {
    await Promise.resolve();
    return { unit: "", operation: "daemon-reload", result: "done" };
  }

  /** The mock's unit files never change on disk. */
  async unitsNeedingReload(): Promise<string[]> {
    await Promise.resolve();
    return [];
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function stateOf(u: MockUnitSeed): UnitState {
  return {
    description: u.description, load_state: u.load_state, active_state: u.active_state, sub_state: u.sub_state,
    unit_file_state: u.unit_file_state, main_pid: u.main_pid, since: usecToIso(u.since_usec),
  };
}

/** "system manager" / "user manager of alice", for messages. */
export function describeRef(ref: ManagerRef): string {
  return ref.scope === "system" ? "system manager" : `user manager of ${ref.user}`;
}

/** A mock manager set: the seeded system manager plus user `alice` with her own units. */
export function createMockUnitManagers(opts: { now?: () => number } = {}): UnitManagerSet {
  const system = new MockUnitManager({ ref: { scope: "system" }, units: systemSeed(), ...opts });
  const alice = new MockUnitManager({ ref: { scope: "user", user: "alice" }, units: userSeed(), ...opts });
  return createUnitManagerSet(system, new Map([["alice", alice]]));
}
