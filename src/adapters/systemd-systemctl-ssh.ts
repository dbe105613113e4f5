/**
 * The fallback UnitManager of a remote host that runs systemd but has no `systemd-stdio-bridge` (issue 20):
 * every call is one `systemctl` command over SSH, its output parsed by core/systemd/systemctl-text.ts. Reads run
 * as the login; jobs and unit-file changes as root (`sudo -n --` with `become: sudo`). Each argument is quoted
 * by shellJoin; unit names are checked (core/systemd/unit-name.ts) before anything is sent.
 *
 * What it gives up against the D-Bus path: `ExecStart` argv is split on spaces (systemctl prints it joined);
 * a job's outcome is systemctl's exit status (`done` or `failed`), not JobRemoved's full result; list-units
 * needs systemd 246+ (`-o json`). Errors: `no_such_unit`, `invalid_unit_name`, `permission_denied`
 * (polkit/D-Bus refused the login), `timeout`, `backend_error` (anything else, with systemctl's words), and the
 * sudo and connection errors.
 */
import type { SFTPWrapper } from "ssh2";
import { becomePrefix, sudoFailure, type Become } from "../core/inventory/become.ts";
import { shellJoin } from "../core/inventory/target.ts";
import { HostgateError } from "../core/errors.ts";
import { matchesUnitFilter, sortEntries } from "../core/systemd/list-filter.ts";
import { redactUnitText } from "../core/systemd/payload.ts";
import type { JobOutcome, ServiceStatus, UnitDefinition, UnitListEntry, UnitState } from "../core/systemd/payload.ts";
import { parseExecCommands, parseListUnitsJson, parseShow, parseUnitFileChanges, showNumber, showTimestampToIso } from "../core/systemd/systemctl-text.ts";
import { parseUnitName } from "../core/systemd/unit-name.ts";
import type { JobOptions, ListUnitsQuery, UnitManager } from "../ports/unit-manager.ts";
import { runRemote, type OpenExec, type RemoteRun } from "./remote-exec.ts";
import { unitFileReaderOf } from "./systemd-bridge-ssh.ts";
import type { UnitFileReader } from "./systemd-dbus.ts";

/** Options of {@link SystemctlUnitManager}. */
export interface SystemctlUnitManagerOptions {
  open: OpenExec;
  /** The pooled connection's SFTP session: unit files are read through it; absent, by exec. */
  sftp?: (() => Promise<SFTPWrapper>) | undefined;
  host: string;
  login: string;
  become: Become;
  /** Budget of one read, ms (default 15 000). */
  callTimeoutMs?: number;
}

const STATE_PROPS = "Description,LoadState,ActiveState,SubState,UnitFileState,MainPID,StateChangeTimestamp";
const MAX_FILE_BYTES = 256 * 1024;

/** See the module comment. */
export class SystemctlUnitManager implements UnitManager {
  readonly ref = { scope: "system" } as const;
  private readonly readUnitFile: UnitFileReader;

  constructor(private readonly o: SystemctlUnitManagerOptions) {
    this.readUnitFile = unitFileReaderOf(o);
  }

  private async systemctl(args: readonly string[], privileged: boolean, timeoutMs = this.o.callTimeoutMs ?? 15_000): Promise<RemoteRun> {
    const argv = [...(privileged ? becomePrefix(this.o.become) : []), "systemctl", "--no-pager", "--no-ask-password", ...args];
    const r = await runRemote(this.o.open, shellJoin(argv), { timeoutMs, maxOutputBytes: 8 * 1024 * 1024 });
    if (r.timed_out) throw new HostgateError("timeout", `systemctl ${args[0] ?? ""} on ${this.o.host} did not finish within ${timeoutMs} ms; it may still be running`);
    if (r.exit_code === null) throw new HostgateError("backend_error", `systemctl ${args[0] ?? ""} on ${this.o.host} lost its connection; its outcome is unknown`);
    if (privileged && this.o.become === "sudo") {
      const e = sudoFailure(r.stderr.toString(), r.exit_code, this.o.host, this.o.login);
      if (e) throw e;
    }
    return r;
  }

  /** Maps a failed systemctl to the port's errors. */
  private failure(r: RemoteRun, what: string, unit?: string): HostgateError {
    const err = r.stderr.toString().trim();
    if (/Interactive authentication required|Access denied|not authorized/i.test(err)) {
      return new HostgateError("permission_denied", `the system manager on ${this.o.host} refused ${what} for ${this.o.login}: ${err.slice(0, 200)}`, { hint: `Log in as root or set become: sudo for ${this.o.host}.` });
    }
    if (unit !== undefined && /not found|not loaded/i.test(err)) return new HostgateError("no_such_unit", `unit ${unit} not found on ${this.o.host}: ${err.slice(0, 200)}`, { details: { unit } });
    return new HostgateError("backend_error", `systemctl ${what} on ${this.o.host} failed (exit ${r.exit_code ?? "?"}): ${err.slice(0, 300)}`, { details: { host: this.o.host } });
  }

  private async show(unit: string, props: string): Promise<Map<string, string>> {
    parseUnitName(unit);
    const r = await this.systemctl(["show", "--timestamp=us+utc", "-p", props, "--", unit], false);
    if (r.exit_code !== 0) throw this.failure(r, "show", unit);
    const p = parseShow(r.stdout.toString());
    if (p.get("LoadState") === "not-found" && p.get("ActiveState") === "inactive") {
      throw new HostgateError("no_such_unit", `unit ${unit} not found on the system manager of ${this.o.host} (not loaded, no unit file)`, {
        hint: "Call list_units to see the units this manager knows.", details: { unit },
      });
    }
    return p;
  }

  async listUnits(query: ListUnitsQuery = {}): Promise<UnitListEntry[]> {
    const patterns = query.patterns !== undefined && query.patterns.length > 0 ? [...query.patterns] : (query.types ?? []).map((t) => `*.${t}`);
    const states = (query.states ?? []).map((s) => `--state=${s}`);
    const r = await this.systemctl(["list-units", "--all", "-o", "json", ...states, "--", ...patterns], false);
    if (r.exit_code !== 0) throw this.failure(r, "list-units");
    let rows: UnitListEntry[];
    try {
      rows = parseListUnitsJson(r.stdout.toString());
    } catch (e) {
      throw new HostgateError("backend_error", `systemctl list-units -o json on ${this.o.host} printed no JSON (${(e as Error).message}); systemd 246 or later is needed`);
    }
    return sortEntries(rows.filter((e) => matchesUnitFilter(e, query)));
  }

  async getUnit(unit: string): Promise<UnitState> {
    return stateFrom(await this.show(unit, STATE_PROPS));
  }

  async getServiceStatus(unit: string): Promise<ServiceStatus> {
    if (parseUnitName(unit).type !== "service") throw new HostgateError("invalid_unit_name", `${unit} is not a .service unit`);
    const p = await this.show(unit, `${STATE_PROPS},Type,Result,NRestarts,ExecMainStatus,ExecStart,MemoryCurrent,FragmentPath`);
    return {
      unit, ...stateFrom(p), service_type: p.get("Type") ?? "", result: p.get("Result") ?? "", n_restarts: showNumber(p.get("NRestarts")) ?? 0,
      exec_main_status: showNumber(p.get("ExecMainStatus")) ?? 0, exec_start: parseExecCommands(p.get("ExecStart")),
      memory_current_bytes: showNumber(p.get("MemoryCurrent")), fragment_path: p.get("FragmentPath") || null,
    };
  }

  async getDefinition(unit: string): Promise<UnitDefinition> {
    const p = await this.show(unit, "LoadState,ActiveState,FragmentPath,DropInPaths");
    const fragment = p.get("FragmentPath") ?? "";
    const dropIns = (p.get("DropInPaths") ?? "").split(" ").filter((x) => x !== "");
    const files = [...(fragment ? [fragment] : []), ...dropIns];
    const texts = await Promise.all(files.map((f) => (f.startsWith("/") && !f.split("/").includes("..") ? this.readUnitFile(f, MAX_FILE_BYTES) : Promise.resolve(`(refused: unexpected path ${JSON.stringify(f)})\n`))));
    const text = files.map((f, i) => `# ${f}\n${texts[i]!}`).join("\n");
    return { fragment_path: fragment || null, drop_in_paths: dropIns, ...redactUnitText(text) };
  }

  private async job(verb: string, unit: string, opts: JobOptions = {}): Promise<JobOutcome> {
    parseUnitName(unit);
    const r = await this.systemctl([verb, "--", unit], true, opts.timeoutMs ?? 30_000);
    if (r.exit_code === 0) return { unit, operation: verb, result: "done" };
    const err = r.stderr.toString();
    if (/^Job for .* (failed|canceled)/m.test(err)) return { unit, operation: verb, result: /canceled/.test(err) ? "canceled" : "failed" };
    throw this.failure(r, verb, unit);
  }

  startUnit(unit: string, opts?: JobOptions): Promise<JobOutcome> {
    return this.job("start", unit, opts);
  }
  stopUnit(unit: string, opts?: JobOptions): Promise<JobOutcome> {
    return this.job("stop", unit, opts);
  }
  restartUnit(unit: string, opts?: JobOptions): Promise<JobOutcome> {
    return this.job("restart", unit, opts);
  }
  reloadUnit(unit: string, opts?: JobOptions): Promise<JobOutcome> {
    return this.job("reload", unit, opts);
  }

  private async unitFiles(verb: "enable" | "disable" | "mask" | "unmask", units: readonly string[]): Promise<JobOutcome> {
    for (const u of units) parseUnitName(u);
    const r = await this.systemctl([verb, "--", ...units], true, 60_000);
    if (r.exit_code !== 0) throw this.failure(r, verb, units.join(" "));
    const changes = parseUnitFileChanges(`${r.stdout.toString()}\n${r.stderr.toString()}`);
    return { unit: units.join(" "), operation: verb, result: changes.length > 0 ? "changed" : "unchanged", changes };
  }

  enableUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    return this.unitFiles("enable", units);
  }
  disableUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    return this.unitFiles("disable", units);
  }
  maskUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    return this.unitFiles("mask", units);
  }
  unmaskUnitFiles(units: readonly string[]): Promise<JobOutcome> {
    return this.unitFiles("unmask", units);
  }

  async reloadManager(): Promise<JobOutcome> {
    const r = await this.systemctl(["daemon-reload"], true, 60_000);
    if (r.exit_code !== 0) throw this.failure(r, "daemon-reload", "");
    return { unit: "", operation: "daemon-reload", result: "done" };
  }

  async unitsNeedingReload(): Promise<string[]> {
    // `show` with a pattern matches the loaded units; one `Id=`/`NeedDaemonReload=` block per unit.
    const r = await this.systemctl(["show", "--property=Id,NeedDaemonReload", "--", "*"], false);
    if (r.exit_code !== 0) throw this.failure(r, "show", "*");
    return r.stdout.toString().split("\n\n").map((b) => parseShow(b)).filter((p) => p.get("NeedDaemonReload") === "yes").map((p) => p.get("Id") ?? "").filter((u) => u !== "").sort();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function stateFrom(p: Map<string, string>): UnitState {
  const pid = showNumber(p.get("MainPID")) ?? 0;
  return {
    description: p.get("Description") ?? "", load_state: p.get("LoadState") ?? "", active_state: p.get("ActiveState") ?? "", sub_state: p.get("SubState") ?? "",
    unit_file_state: p.get("UnitFileState") ?? "", main_pid: pid > 0 ? pid : null, since: showTimestampToIso(p.get("StateChangeTimestamp")),
  };
}
