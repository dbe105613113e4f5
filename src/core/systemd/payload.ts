/**
 * Wire shapes of unit data (snake_case). These are what tools return and what resources serialise; the
 * unit's identity lives in the URI, so the state payload does not repeat its name.
 */

import { marker } from "../redact.ts";

/** Compact runtime state of one unit (resource payload of systemd://…/unit/{type}/{name}). */
export interface UnitState {
  /** Unit Description= (host-derived, untrusted). */
  description: string;
  /** systemd LoadState: loaded, not-found, bad-setting, error, masked, merged, stub. */
  load_state: string;
  /** systemd ActiveState: active, reloading, inactive, failed, activating, deactivating, maintenance, refreshing. */
  active_state: string;
  /** Type-specific SubState, e.g. running, exited, dead, waiting, listening, mounted, elapsed. */
  sub_state: string;
  /** UnitFileState: enabled, disabled, static, masked, generated, transient, indirect, alias, linked… or "" when it has none. */
  unit_file_state: string;
  /** Main PID for services (null when none or not a service). */
  main_pid: number | null;
  /** Last state change (StateChangeTimestamp) as ISO 8601 UTC, null when never. */
  since: string | null;
}

/** One row of list_units / resources/list. */
export interface UnitListEntry {
  /** Full unit name with suffix. */
  unit: string;
  description: string;
  load_state: string;
  active_state: string;
  sub_state: string;
}

/** Definition of a unit: the fragment and drop-ins as text, like `systemctl cat`. Paths are on the managed host. */
export interface UnitDefinition {
  fragment_path: string | null;
  drop_in_paths: string[];
  /** `# <path>` header followed by the file content, for the fragment then each drop-in; secrets redacted. */
  text: string;
  /** How many values {@link redactUnitText} replaced in `text` (provenance's count; not part of the tool's answer). */
  redactions: number;
}

/** One ExecStart= entry of a service (from the a(sasbttttuii) property). */
export interface ExecCommand {
  path: string;
  argv: string[];
  ignore_errors: boolean;
  /** Last run's PID, exit code kind (CLD_* as number) and status; 0 when not run. */
  pid: number;
  code: number;
  status: number;
}

/** Service status: the compact state plus service-level fields (get_service_status). */
export interface ServiceStatus extends UnitState {
  unit: string;
  /** Service Type= (simple, exec, forking, oneshot, notify, dbus, idle). */
  service_type: string;
  /** Result of the last run: success, exit-code, signal, timeout, core-dump, watchdog, start-limit-hit… */
  result: string;
  n_restarts: number;
  exec_main_status: number;
  exec_start: ExecCommand[];
  /** Memory use in bytes, null when not accounted. */
  memory_current_bytes: number | null;
  fragment_path: string | null;
}

/** The outcome of a job or unit-file change. */
export interface JobOutcome {
  unit: string;
  /** The operation: start, stop, restart, reload, enable, disable. */
  operation: string;
  /** JobRemoved result (done, canceled, timeout, failed, dependency, skipped) or "changed" / "unchanged" for unit files. */
  result: string;
  /** Unit-file changes as [type, file, destination] for enable/disable. */
  changes?: { type: string; file: string; destination: string }[];
}

/** Converts a systemd realtime timestamp in microseconds since the epoch to ISO 8601, null for 0. */
export function usecToIso(usec: bigint | number): string | null {
  const n = typeof usec === "bigint" ? usec : BigInt(Math.trunc(usec));
  if (n <= 0n || n === 0xffffffffffffffffn) return null;
  return new Date(Number(n / 1000n)).toISOString();
}

/** The marker a redacted unit value becomes: the answer redactor's form, so it leaves it alone (core/redact.ts). */
const UNIT_SECRET = marker("unit_secret");

const SECRET_KEY_MARKERS = ["PASS", "SECRET", "TOKEN", "KEY", "CREDENTIAL", "AUTH"];

function looksSecret(key: string): boolean {
  const k = key.toUpperCase();
  return SECRET_KEY_MARKERS.some((m) => k.includes(m));
}

/**
 * Redacts secrets in unit-file text before it leaves the daemon: `SetCredential=`/`SetCredentialEncrypted=`
 * values, and `Environment=` assignments whose variable name contains PASS, SECRET, TOKEN, KEY, CREDENTIAL
 * or AUTH. Values become `[redacted:unit_secret]`. Line-by-line, linear. Returns the text and how many values were replaced.
 */
export function redactUnitText(text: string): { text: string; redactions: number } {
  let redactions = 0;
  const out = text.split("\n").map((line) => {
    const eq = line.indexOf("=");
    if (eq < 0) return line;
    const key = line.slice(0, eq).trim();
    if (key === "SetCredential" || key === "SetCredentialEncrypted") {
      redactions++;
      const colon = line.indexOf(":", eq);
      return colon < 0 ? `${line.slice(0, eq + 1)}${UNIT_SECRET}` : `${line.slice(0, colon + 1)}${UNIT_SECRET}`;
    }
    if (key !== "Environment") return line;
    const words = line.slice(eq + 1).split(" ");
    return `${line.slice(0, eq + 1)}${words.map((w) => {
      const q = w.startsWith("\"") ? "\"" : "";
      const inner = q ? w.slice(1) : w;
      const e = inner.indexOf("=");
      if (e <= 0 || !looksSecret(inner.slice(0, e))) return w;
      redactions++;
      return `${q}${inner.slice(0, e + 1)}${UNIT_SECRET}${q && w.endsWith("\"") ? "\"" : ""}`;
    }).join(" ")}`;
  }).join("\n");
  return { text: out, redactions };
}
