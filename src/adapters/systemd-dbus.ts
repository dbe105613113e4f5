/**
 * UnitManager over D-Bus (org.freedesktop.systemd1) with @jellybrick/dbus-next. The library is imported and
 * the bus connected lazily on the first operation; constructing the adapter does no I/O. There is no
 * fallback: a connection failure rejects that operation with `backend_error` naming the bus address, and
 * the next operation tries again. One connection serves every call (D-Bus serials match replies to calls, so
 * concurrent calls share it); when it is lost (the bus restarts, a remote bridge dies) the calls waiting on it
 * fail at once, a read among them is sent once more on a new connection, and later calls connect again. Calls are raw method calls (no introspection round trip).
 *
 * Reads: ListUnitsByPatterns (list-units --all semantics), Properties.GetAll on the unit's object path
 * (computed with core/systemd/bus-path; systemd loads the unit on demand, so units not in memory report
 * their unit-file state and `not-found` ones become `no_such_unit`), org.freedesktop.systemd1.Service for
 * service fields. Definitions read FragmentPath + DropInPaths through `readUnitFile` (default: the file system
 * under `fileRoot`, e.g. `/proc/<container pid 1>/root`; a remote host's through SSH). The bus comes from
 * `openBus` (default: the socket at `busAddress`; adapters/systemd-bridge-ssh.ts carries a remote host's bus
 * over SSH). Jobs subscribe to JobRemoved before enqueueing and wait for it.
 */
import { open } from "node:fs/promises";
import type { MessageBus } from "@jellybrick/dbus-next";
import { HostgateError } from "../core/errors.ts";
import { unitObjectPath } from "../core/systemd/bus-path.ts";
import { matchesUnitFilter, sortEntries } from "../core/systemd/list-filter.ts";
import { redactUnitText, usecToIso } from "../core/systemd/payload.ts";
import type { JobOutcome, ServiceStatus, UnitDefinition, UnitListEntry, UnitState } from "../core/systemd/payload.ts";
import { parseUnitName } from "../core/systemd/unit-name.ts";
import type { ManagerRef } from "../core/systemd/uri.ts";
import type { JobOptions, ListUnitsQuery, PropertySource, UnitManager } from "../ports/unit-manager.ts";
import { big, decodeChanges, decodeExecCommands, decodeUnitRows, num, plain, propMap, str } from "./systemd-dbus-decode.ts";
import type { PropMap } from "./systemd-dbus-decode.ts";
import { describeRef } from "./systemd-mock.ts";

const DEST = "org.freedesktop.systemd1";
const MANAGER_PATH = "/org/freedesktop/systemd1";
const MANAGER = "org.freedesktop.systemd1.Manager";
const UNIT = "org.freedesktop.systemd1.Unit";
const SERVICE = "org.freedesktop.systemd1.Service";
const PROPS = "org.freedesktop.DBus.Properties";
/** Methods that only read: sent again once when the connection is lost under them (see DbusUnitManager.call). */
const RETRIED_ON_LOSS = new Set(["Get", "GetAll", "ListUnitsByPatterns"]);
const JOB_MATCH = `type='signal',sender='${DEST}',interface='${MANAGER}',member='JobRemoved',path='${MANAGER_PATH}'`;

/** Options for {@link DbusUnitManager}. */
export interface DbusUnitManagerOptions {
  /** D-Bus address, e.g. `unix:path=/run/dbus/system_bus_socket` or `unix:path=/run/user/1000/bus`. */
  busAddress: string;
  ref?: ManagerRef;
  /** Prefix under which FragmentPath / DropInPaths are read. Default "/" (the local host). Ignored with `readUnitFile`. */
  fileRoot?: string;
  /**
   * Opens the connection (default: `sessionBus({ busAddress })`, a socket address). A remote manager passes one
   * that carries the bus over another stream (adapters/systemd-bridge-ssh.ts); `busAddress` then only names it
   * in messages. The adapter waits for the bus's `connect` event either way.
   */
  openBus?: (mod: DbusModule) => Promise<MessageBus>;
  /** Reads FragmentPath / DropInPaths (default: the local file system under `fileRoot`, {@link localUnitFileReader}). */
  readUnitFile?: UnitFileReader;
  /** Connect timeout and per-call timeout in ms. Default 5000 / 10000. */
  connectTimeoutMs?: number;
  callTimeoutMs?: number;
  /** Cap per unit file read, bytes. Default 256 KiB. */
  maxFileBytes?: number;
  /**
   * Close the connection after this many ms with no call in flight and no job awaited (absent: kept until
   * `close()`, as for a local socket). A remote bridge passes the kept-channel idle time (exec-ssh/pool.ts
   * KEPT_CHANNEL_IDLE_MS) so its channel gives the pool's slot back and an idle SSH connection can close; the
   * next call connects again.
   */
  idleMs?: number;
}

/** The part of @jellybrick/dbus-next this adapter uses (imported on first use). */
export interface DbusModule {
  sessionBus: (opts: { busAddress: string }) => MessageBus;
  Message: new (m: { destination?: string; path: string; interface: string; member: string; signature?: string; body?: unknown[] }) => unknown;
}

/**
 * Reads one unit file for a definition: its text (cut at `maxBytes`, marked), or a one-line note in parentheses
 * when it is not shown (not readable by everyone: a 0600 drop-in is how secrets are kept out of world-readable
 * units, red team issue 12) or cannot be read. `path` is absolute and holds no `..` (checked before the call).
 */
export type UnitFileReader = (path: string, maxBytes: number) => Promise<string>;

/** The note a reader returns for a unit file not readable by everyone (mode: permission bits). */
export function notShownNote(mode: number): string {
  return `(not shown: mode ${(mode & 0o7777).toString(8).padStart(4, "0")}, not readable by everyone; read it on the host)\n`;
}

/** Reads unit files from this machine's file system under `fileRoot` (e.g. `/proc/<container pid 1>/root`). */
export function localUnitFileReader(fileRoot: string): UnitFileReader {
  const root = fileRoot.endsWith("/") ? fileRoot.slice(0, -1) : fileRoot;
  return async (path, maxBytes) => {
    let handle;
    try {
      handle = await open(root + path, "r");
      // Judged on the descriptor that is read.
      const st = await handle.stat();
      if ((st.mode & 0o004) === 0) return notShownNote(st.mode);
      const buf = await handle.readFile();
      const cut = buf.length > maxBytes;
      return buf.subarray(0, maxBytes).toString("utf8") + (cut ? `\n(truncated at ${maxBytes} bytes)\n` : "");
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      return `(unreadable: ${typeof code === "string" ? code : "error"})\n`;
    } finally {
      await handle?.close();
    }
  };
}

/** The system bus address used when none is configured. */
export const DEFAULT_SYSTEM_BUS = "unix:path=/run/dbus/system_bus_socket";

/** One open connection: the bus, the library, and a promise that rejects when the connection is lost. */
interface Conn {
  bus: MessageBus;
  mod: DbusModule;
  lost: Promise<never>;
}

/** UnitManager on one systemd manager over D-Bus. */
export class DbusUnitManager implements UnitManager {
  readonly ref: ManagerRef;
  private readonly opts: Required<Omit<DbusUnitManagerOptions, "ref" | "openBus" | "fileRoot" | "idleMs">>;
  private readonly idleMs: number | undefined;
  /** Calls in flight (connect included); the idle close waits for none and no job waiter. */
  private busy = 0;
  private idle: NodeJS.Timeout | undefined;
  private readonly openBus: ((mod: DbusModule) => Promise<MessageBus>) | undefined;
  private conn: Promise<Conn> | null = null;
  private connBus: MessageBus | null = null;
  private subscribed: Promise<void> | null = null;
  private readonly finishedJobs = new Map<string, string>();
  private readonly jobWaiters = new Map<string, (result: string) => void>();

  constructor(opts: DbusUnitManagerOptions) {
    this.ref = opts.ref ?? { scope: "system" };
    this.opts = {
      busAddress: opts.busAddress, readUnitFile: opts.readUnitFile ?? localUnitFileReader(opts.fileRoot ?? "/"), connectTimeoutMs: opts.connectTimeoutMs ?? 5000,
      callTimeoutMs: opts.callTimeoutMs ?? 10_000, maxFileBytes: opts.maxFileBytes ?? 256 * 1024,
    };
    this.openBus = opts.openBus;
    this.idleMs = opts.idleMs;
  }

  /** True while a bus connection is open or being opened (the idle close's test and bench/remote-systemd.ts). */
  get isConnected(): boolean {
    return this.conn !== null;
  }

  /** Arms the idle close (see `idleMs`) when nothing is in flight and a connection is open. */
  private idleLater(): void {
    if (this.idleMs === undefined || this.busy > 0 || this.jobWaiters.size > 0 || this.conn === null) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.busy === 0 && this.jobWaiters.size === 0) void this.close();
    }, this.idleMs);
    this.idle.unref();
  }

  /** The bus address this adapter uses (for doctor and startup lines). */
  get busAddress(): string {
    return this.opts.busAddress;
  }

  private connect(): Promise<Conn> {
    this.conn ??= this.open().catch((e: unknown) => {
      this.conn = null;
      throw e;
    });
    return this.conn;
  }

  private async open(): Promise<Conn> {
    const mod = (await import("@jellybrick/dbus-next")) as unknown as DbusModule;
    const address = this.opts.busAddress;
    const fail = (why: string, cause?: unknown) => new HostgateError("backend_error", `cannot connect to the ${describeRef(this.ref)} at ${address}: ${why}`, {
      hint: "Check that the bus socket exists and is accessible to the daemon user, and that systemd runs there (backend.bus_address in the config; PID 1 must be systemd for the system manager).",
      details: { bus_address: address }, cause,
    });
    let bus: MessageBus;
    try {
      bus = this.openBus ? await this.openBus(mod) : mod.sessionBus({ busAddress: address });
    } catch (e) {
      if (e instanceof HostgateError) throw e;
      throw fail(e instanceof Error ? e.message : String(e), e);
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(fail(`no answer within ${this.opts.connectTimeoutMs} ms`));
      }, this.opts.connectTimeoutMs);
      bus.once("connect", () => {
        clearTimeout(timer);
        resolve();
      });
      (bus as unknown as NodeJS.EventEmitter).once("error", (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof HostgateError ? e : fail(e instanceof Error ? e.message : String(e), e));
      });
    }).catch((e: unknown) => {
      bus.disconnect();
      (bus as unknown as { _connection?: { stream?: { destroy(): void } } })._connection?.stream?.destroy();
      throw e;
    });
    // A lost connection (the bus went away, or a remote bridge was killed) fails the calls waiting on it at once
    // (dbus-next leaves them pending) and the next call connects again.
    let lose: (e: HostgateError) => void = () => undefined;
    const lost = new Promise<never>((_, reject) => { lose = reject; });
    lost.catch(() => undefined);
    const drop = (e?: unknown) => {
      if (this.connBus === bus) {
        this.conn = null;
        this.connBus = null;
        this.subscribed = null;
      }
      const why = e instanceof Error ? `: ${e.message}` : "";
      lose(new HostgateError("backend_error", `the connection to the ${describeRef(this.ref)} at ${address} was lost${why}`, {
        hint: "Retry: the next call connects again.", details: { bus_address: address, connection_lost: true },
      }));
    };
    this.connBus = bus;
    (bus as unknown as NodeJS.EventEmitter).on("error", drop);
    (bus as unknown as { _connection?: { on(ev: string, fn: () => void): void } })._connection?.on("end", () => { drop(); });
    bus.on("message", (m: { type: number; interface?: string; member?: string; body: unknown[] }) => {
      if (m.type !== 4 || m.interface !== MANAGER || m.member !== "JobRemoved") return;
      const job = String(m.body[1]);
      const result = String(m.body[3]);
      const waiter = this.jobWaiters.get(job);
      if (waiter !== undefined) waiter(result);
      else {
        this.finishedJobs.set(job, result);
        if (this.finishedJobs.size > 256) this.finishedJobs.delete(this.finishedJobs.keys().next().value!);
      }
    });
    return { bus, mod, lost };
  }

  private async call(path: string, iface: string, member: string, signature = "", body: unknown[] = [], dest = DEST): Promise<unknown[]> {
    this.busy++;
    clearTimeout(this.idle);
    try {
      return await this.callOnce(path, iface, member, signature, body, dest);
    } catch (e) {
      // A read whose connection was lost under it is sent once more on a new connection; a change is not (it may have run).
      if (!(e instanceof HostgateError && e.details?.connection_lost === true && RETRIED_ON_LOSS.has(member))) throw e;
      return await this.callOnce(path, iface, member, signature, body, dest);
    } finally {
      this.busy--;
      this.idleLater();
    }
  }

  private async callOnce(path: string, iface: string, member: string, signature = "", body: unknown[] = [], dest = DEST): Promise<unknown[]> {
    const { bus, mod, lost } = await this.connect();
    const msg = new mod.Message({ destination: dest, path, interface: iface, member, ...(signature ? { signature, body } : {}) });
    let timer: NodeJS.Timeout | undefined;
    try {
      const reply = await Promise.race([
        bus.call(msg as Parameters<MessageBus["call"]>[0]),
        lost,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            reject(new HostgateError("timeout", `${iface}.${member} got no reply within ${this.opts.callTimeoutMs} ms from ${this.opts.busAddress}`));
          }, this.opts.callTimeoutMs);
        }),
      ]);
      return reply?.body ?? [];
    } catch (e) {
      throw this.mapError(e, member, body[0]);
    } finally {
      clearTimeout(timer);
    }
  }

  private mapError(e: unknown, member: string, arg: unknown): HostgateError {
    if (e instanceof HostgateError) return e;
    const type = (e as { type?: unknown }).type;
    const text = (e as { text?: unknown }).text;
    const message = typeof text === "string" ? text : e instanceof Error ? e.message : String(e);
    const details = { dbus_error: typeof type === "string" ? type : null, method: member, bus_address: this.opts.busAddress };
    if (type === "org.freedesktop.systemd1.NoSuchUnit") {
      return new HostgateError("no_such_unit", `${message} (${describeRef(this.ref)})`, { details: { ...details, unit: arg } });
    }
    if (type === "org.freedesktop.DBus.Error.AccessDenied" || type === "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") {
      return new HostgateError("permission_denied", `${describeRef(this.ref)} refused ${member}: ${message}`, { details });
    }
    if (type === "org.freedesktop.DBus.Error.ServiceUnknown" || type === "org.freedesktop.DBus.Error.NameHasNoOwner") {
      return new HostgateError("backend_error", `no systemd manager on ${this.opts.busAddress}: ${message}`, { details, hint: "Is PID 1 (or the user manager) systemd, and is this its bus?" });
    }
    return new HostgateError("backend_error", `${member} failed on the ${describeRef(this.ref)}: ${message}`, { details });
  }

  private async getAll(unit: string, iface: string): Promise<PropMap> {
    const body = await this.call(unitObjectPath(unit), PROPS, "GetAll", "s", [iface]);
    return propMap(body[0]);
  }

  /** Unit properties; throws no_such_unit when the unit has no file and is not loaded. */
  private async unitProps(unit: string): Promise<PropMap> {
    parseUnitName(unit);
    const p = await this.getAll(unit, UNIT);
    if (str(p, "LoadState") === "not-found" && str(p, "ActiveState") === "inactive") {
      throw new HostgateError("no_such_unit", `unit ${unit} not found on the ${describeRef(this.ref)} (not loaded, no unit file)`, {
        hint: "Call list_units to see the units this manager knows.", details: { unit },
      });
    }
    return p;
  }

  async listUnits(query: ListUnitsQuery = {}): Promise<UnitListEntry[]> {
    const patterns = query.patterns !== undefined && query.patterns.length > 0 ? [...query.patterns] : (query.types ?? []).map((t) => `*.${t}`);
    const body = await this.call(MANAGER_PATH, MANAGER, "ListUnitsByPatterns", "asas", [[...(query.states ?? [])], patterns]);
    return sortEntries(decodeUnitRows(body[0]).filter((e) => matchesUnitFilter(e, query)));
  }

  async properties(source: PropertySource): Promise<Record<string, unknown>> {
    let body: unknown[];
    if ("destination" in source) {
      body = await this.call(source.path, PROPS, "GetAll", "s", [source.iface], source.destination);
    } else {
      if (source.unit !== null) parseUnitName(source.unit);
      body = await this.call(source.unit === null ? MANAGER_PATH : unitObjectPath(source.unit), PROPS, "GetAll", "s", [`org.freedesktop.systemd1.${source.iface}`]);
    }
    return plain(propMap(body[0])) as Record<string, unknown>;
  }

  async getUnit(unit: string): Promise<UnitState> {
    const isService = parseUnitName(unit).type === "service";
    const [p, pid] = await Promise.all([
      this.unitProps(unit),
      isService ? this.call(unitObjectPath(unit), PROPS, "Get", "ss", [SERVICE, "MainPID"]).catch(() => [0]) : Promise.resolve([0]),
    ]);
    const mainPid = Number((pid[0] as { value?: unknown } | undefined)?.value ?? 0);
    return stateFrom(p, mainPid);
  }

  async getServiceStatus(unit: string): Promise<ServiceStatus> {
    if (parseUnitName(unit).type !== "service") throw new HostgateError("invalid_unit_name", `${unit} is not a .service unit`);
    const [p, s] = await Promise.all([this.unitProps(unit), this.getAll(unit, SERVICE)]);
    const fragment = str(p, "FragmentPath");
    return {
      unit, ...stateFrom(p, num(s, "MainPID") ?? 0), service_type: str(s, "Type"), result: str(s, "Result"),
      n_restarts: num(s, "NRestarts") ?? 0, exec_main_status: num(s, "ExecMainStatus") ?? 0,
      exec_start: decodeExecCommands(s.ExecStart), memory_current_bytes: num(s, "MemoryCurrent"), fragment_path: fragment || null,
    };
  }

  private readUnitFile(path: string): Promise<string> {
    if (!path.startsWith("/") || path.split("/").includes("..")) return Promise.resolve(`(refused: unexpected path ${JSON.stringify(path)})\n`);
    return this.opts.readUnitFile(path, this.opts.maxFileBytes);
  }

  async getDefinition(unit: string): Promise<UnitDefinition> {
    const p = await this.unitProps(unit);
    const fragment = str(p, "FragmentPath");
    const dropIns = Array.isArray(p.DropInPaths) ? p.DropInPaths.filter((x): x is string => typeof x === "string") : [];
    const files = [...(fragment ? [fragment] : []), ...dropIns];
    const texts = await Promise.all(files.map((f) => this.readUnitFile(f)));
    const text = files.map((f, i) => `# ${f}\n${texts[i]!}`).join("\n");
    return { fragment_path: fragment || null, drop_in_paths: dropIns, ...redactUnitText(text) };
  }

  private subscribe(): Promise<void> {
    this.subscribed ??= (async () => {
      await this.call("/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", "s", [JOB_MATCH], "org.freedesktop.DBus");
      try {
        await this.call(MANAGER_PATH, MANAGER, "Subscribe");
      } catch (e) {
        if ((e as HostgateError).details?.dbus_error !== "org.freedesktop.systemd1.AlreadySubscribed") throw e;
      }
    })().catch((e: unknown) => {
      this.subscribed = null;
      throw e;
    });
    return this.subscribed;
  }

  private async runJob(method: string, operation: string, unit: string, opts: JobOptions = {}): Promise<JobOutcome> {
    parseUnitName(unit);
    await this.subscribe();
    const body = await this.call(MANAGER_PATH, MANAGER, method, "ss", [unit, "replace"]);
    const job = String(body[0]);
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const result = await new Promise<string>((resolve, reject) => {
      const done = this.finishedJobs.get(job);
      if (done !== undefined) {
        this.finishedJobs.delete(job);
        resolve(done);
        return;
      }
      const timer = setTimeout(() => {
        this.jobWaiters.delete(job);
        this.idleLater();
        reject(new HostgateError("timeout", `${operation} job ${job} for ${unit} did not finish within ${timeoutMs} ms; it may still be running`, { details: { unit, job } }));
      }, timeoutMs);
      this.jobWaiters.set(job, (r) => {
        clearTimeout(timer);
        this.jobWaiters.delete(job);
        this.idleLater();
        resolve(r);
      });
    });
    return { unit, operation, result };
  }

  startUnit(unit: string, opts?: JobOptions): Promise<JobOutcome> {
    return this.runJob("StartUnit", "start", unit, opts);
  }
  stopUnit(unit: string, opts?: JobOptions): Promise<JobOutcome> {
    return this.runJob("StopUnit", "stop", unit, opts);
  }
  restartUnit(unit: string, opts?: JobOptions): Promise<JobOutcome> {
    return this.runJob("RestartUnit", "restart", unit, opts);
  }
  reloadUnit(unit: string, opts?: JobOptions): Promise<JobOutcome> {
    return this.runJob("ReloadUnit", "reload", unit, opts);
  }

  async enableUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    for (const u of units) parseUnitName(u);
    const body = await this.call(MANAGER_PATH, MANAGER, "EnableUnitFiles", "asbb", [[...units], false, false]);
    const changes = decodeChanges(body[1]);
    await this.call(MANAGER_PATH, MANAGER, "Reload");
    return { unit: units.join(" "), operation: "enable", result: changes.length > 0 ? "changed" : "unchanged", changes };
  }

  async disableUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    for (const u of units) parseUnitName(u);
    const body = await this.call(MANAGER_PATH, MANAGER, "DisableUnitFiles", "asb", [[...units], false]);
    const changes = decodeChanges(body[0]);
    await this.call(MANAGER_PATH, MANAGER, "Reload");
    return { unit: units.join(" "), operation: "disable", result: changes.length > 0 ? "changed" : "unchanged", changes };
  }

  async maskUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    for (const u of units) parseUnitName(u);
    const body = await this.call(MANAGER_PATH, MANAGER, "MaskUnitFiles", "asbb", [[...units], false, false]);
    const changes = decodeChanges(body[0]);
    await this.call(MANAGER_PATH, MANAGER, "Reload");
    return { unit: units.join(" "), operation: "mask", result: changes.length > 0 ? "changed" : "unchanged", changes };
  }

  async unmaskUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    for (const u of units) parseUnitName(u);
    const body = await this.call(MANAGER_PATH, MANAGER, "UnmaskUnitFiles", "asb", [[...units], false]);
    const changes = decodeChanges(body[0]);
    await this.call(MANAGER_PATH, MANAGER, "Reload");
    return { unit: units.join(" "), operation: "unmask", result: changes.length > 0 ? "changed" : "unchanged", changes };
  }

  async reloadManager(): Promise<JobOutcome> {
    // Reload returns once the manager has re-read its configuration (the reply is sent after the reload).
    await this.call(MANAGER_PATH, MANAGER, "Reload");
    return { unit: "", operation: "daemon-reload", result: "done" };
  }

  async unitsNeedingReload(): Promise<string[]> {
    const units = (await this.listUnits()).filter((u) => u.load_state === "loaded");
    const flags = await Promise.all(units.map((u) => this.call(unitObjectPath(u.unit), PROPS, "Get", "ss", [UNIT, "NeedDaemonReload"]).then((b) => (b[0] as { value?: unknown } | undefined)?.value === true).catch(() => false)));
    return units.filter((_, i) => flags[i]).map((u) => u.unit).sort();
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    this.idle = undefined;
    const c = this.conn;
    this.conn = null;
    this.connBus = null;
    this.subscribed = null;
    if (c === null) return;
    try {
      (await c).bus.disconnect();
    } catch {
      // a failed connection has nothing to close
    }
  }
}

function stateFrom(p: PropMap, mainPid: number): UnitState {
  return {
    description: str(p, "Description"), load_state: str(p, "LoadState"), active_state: str(p, "ActiveState"), sub_state: str(p, "SubState"),
    unit_file_state: str(p, "UnitFileState"), main_pid: mainPid > 0 ? mainPid : null, since: usecToIso(big(p, "StateChangeTimestamp")),
  };
}
