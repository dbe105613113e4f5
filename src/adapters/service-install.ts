import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
export { checkInstallTree } from "./install-tree.ts";
import { AGENT_GROUP, SERVICE_UNIT, UNIT_MARKER, VSOCK_SERVICE_UNIT, VSOCK_SOCKET_UNIT, serviceUnit, vsockServiceUnit, vsockSocketUnit } from "../core/service/units.ts";

/**
 * `hostgate daemon install|uninstall`: the privileged daemon as a systemd service. Writes the units, creates
 * the `hostgate` group, checks the units with `systemd-analyze verify`, enables and starts them; uninstall
 * stops, disables and removes what install wrote (state in /var/lib/hostgate — the audit chain — is kept).
 */

/** Where and what to install. */
export interface InstallOptions {
  /** Directory for unit files (default /etc/systemd/system). */
  unitDir?: string;
  /** Also listen on this vsock port (systemd socket unit + systemd-socket-proxyd). */
  vsockPort?: number | undefined;
  /** Write and verify only; do not enable or start. */
  noStart?: boolean;
  node?: string;
  script?: string;
  version?: string;
}

/** What install did, step by step, for the summary; `ok` false when a step failed (later steps not run). */
export interface InstallReport {
  ok: boolean;
  steps: { what: string; ok: boolean; detail?: string }[];
  units: string[];
}

function run(argv: string[]): { ok: boolean; out: string } {
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 60_000 });
  if (r.error) return { ok: false, out: r.error.message };
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}`.trim() };
}

/** Absolute path of systemd-socket-proxyd on this system, or null. */
export function findProxyd(): string | null {
  for (const p of ["/usr/lib/systemd/systemd-socket-proxyd", "/lib/systemd/systemd-socket-proxyd"]) if (existsSync(p)) return p;
  return null;
}

function groupExists(name: string): boolean {
  return run(["getent", "group", name]).ok;
}

/** Writes `text` to `path` unless a unit there was not written by us (then refuses, to not clobber an admin's unit). */
function writeUnit(path: string, text: string): { ok: boolean; detail: string } {
  if (existsSync(path) && !readFileSync(path, "utf8").startsWith(UNIT_MARKER)) {
    return { ok: false, detail: `${path} exists and was not written by hostgate: move it away (or merge by hand) and run install again` };
  }
  const tmp = `${path}.hostgate-tmp`;
  writeFileSync(tmp, text, { mode: 0o644 });
  renameSync(tmp, path);
  return { ok: true, detail: path };
}

/** The units install would write, by file name (for --dry-run and for install itself). */
export function renderUnits(opts: Required<Pick<InstallOptions, "node" | "script" | "version">> & { vsockPort?: number | undefined; proxyd?: string }): Record<string, string> {
  const units: Record<string, string> = { [SERVICE_UNIT]: serviceUnit(opts) };
  if (opts.vsockPort !== undefined) {
    units[VSOCK_SOCKET_UNIT] = vsockSocketUnit(opts.vsockPort, opts.version);
    units[VSOCK_SERVICE_UNIT] = vsockServiceUnit(opts.proxyd ?? "/lib/systemd/systemd-socket-proxyd", opts.version);
  }
  return units;
}

/** Installs (or updates) the service. Needs root. Never throws for an expected failure: see the report. */
export function installService(opts: InstallOptions & { node: string; script: string; version: string }): InstallReport {
  const report: InstallReport = { ok: true, steps: [], units: [] };
  const step = (what: string, ok: boolean, detail?: string): boolean => {
    report.steps.push({ what, ok, ...(detail ? { detail } : {}) });
    if (!ok) report.ok = false;
    return ok;
  };
  if (process.getuid?.() !== 0) {
    step("check privileges", false, "installing a system service needs root: run `sudo hostgate daemon install`");
    return report;
  }
  const unitDir = opts.unitDir ?? "/etc/systemd/system";
  const proxyd = findProxyd();
  if (opts.vsockPort !== undefined && proxyd === null) {
    step("find systemd-socket-proxyd", false, "not found in /usr/lib/systemd or /lib/systemd (part of systemd; Debian: apt-get install systemd)");
    return report;
  }
  if (!groupExists(AGENT_GROUP)) {
    const g = run(["groupadd", "--system", AGENT_GROUP]);
    if (!step(`create group ${AGENT_GROUP}`, g.ok, g.out || undefined)) return report;
  } else {
    step(`group ${AGENT_GROUP} exists`, true);
  }
  const units = renderUnits({ ...opts, ...(proxyd ? { proxyd } : {}) });
  for (const [name, text] of Object.entries(units)) {
    const w = writeUnit(join(unitDir, name), text);
    if (!step(`write ${name}`, w.ok, w.detail)) return report;
    report.units.push(join(unitDir, name));
  }
  const verify = run(["systemd-analyze", "verify", ...report.units]);
  if (!step("systemd-analyze verify", verify.ok, verify.out || undefined)) return report;
  if (opts.noStart) return report;
  const reload = run(["systemctl", "daemon-reload"]);
  if (!step("systemctl daemon-reload", reload.ok, reload.out || undefined)) return report;
  const enable = run(["systemctl", "enable", "--now", SERVICE_UNIT, ...(opts.vsockPort !== undefined ? [VSOCK_SOCKET_UNIT] : [])]);
  step(`systemctl enable --now ${SERVICE_UNIT}${opts.vsockPort !== undefined ? ` ${VSOCK_SOCKET_UNIT}` : ""}`, enable.ok, enable.out || undefined);
  return report;
}

/** Stops, disables and removes the units install wrote, and the group. State (/var/lib/hostgate) stays. */
export function uninstallService(opts: { unitDir?: string; keepGroup?: boolean } = {}): InstallReport {
  const report: InstallReport = { ok: true, steps: [], units: [] };
  const step = (what: string, ok: boolean, detail?: string): void => {
    report.steps.push({ what, ok, ...(detail ? { detail } : {}) });
    if (!ok) report.ok = false;
  };
  if (process.getuid?.() !== 0) {
    step("check privileges", false, "removing a system service needs root: run `sudo hostgate daemon uninstall`");
    return report;
  }
  const unitDir = opts.unitDir ?? "/etc/systemd/system";
  const ours = [VSOCK_SOCKET_UNIT, VSOCK_SERVICE_UNIT, SERVICE_UNIT].filter((n) => {
    const p = join(unitDir, n);
    return existsSync(p) && readFileSync(p, "utf8").startsWith(UNIT_MARKER);
  });
  if (ours.length > 0 && run(["systemctl", "--version"]).ok) {
    const stop = run(["systemctl", "disable", "--now", ...ours]);
    step(`systemctl disable --now ${ours.join(" ")}`, stop.ok, stop.out || undefined);
  }
  for (const n of ours) {
    unlinkSync(join(unitDir, n));
    step(`remove ${join(unitDir, n)}`, true);
  }
  if (ours.length === 0) step("no hostgate units installed", true);
  const reload = run(["systemctl", "daemon-reload"]);
  step("systemctl daemon-reload", reload.ok, reload.out || undefined);
  if (!opts.keepGroup && groupExists(AGENT_GROUP)) {
    const g = run(["groupdel", AGENT_GROUP]);
    step(`remove group ${AGENT_GROUP}`, g.ok, g.out || undefined);
  }
  step("state kept", true, "/var/lib/hostgate (the audit chain and signing key) and /var/log/hostgate (checkpoint copies) are kept; remove them yourself if you mean to");
  return report;
}

/** A human summary of an install or uninstall report, one line per step. */
export function installSummary(r: InstallReport): string {
  return r.steps.map((s) => `${s.ok ? "✓" : "✗"} ${s.what}${s.detail ? `: ${s.detail}` : ""}`).join("\n");
}
