import type { Config } from "../config/schema.ts";
import { HostgateError, toHostgateError } from "../core/errors.ts";
import type { DoctorLine } from "./doctor-checks.ts";

/**
 * What `hostgate doctor --hosts` found about one inventory host (issue 20), after dialing it as the daemon
 * would (the config's `exec` keys, known_hosts and login; host keys always checked strictly: doctor never
 * records a key). Fields are null when the step before them failed.
 */
export interface HostReport {
  host: string;
  /** The SSH connection was made and authenticated. */
  reachable: boolean;
  /** `known`: matches known_hosts; `unknown`: not listed; `mismatch`: listed with another key; null: not reached. */
  host_key: "known" | "unknown" | "mismatch" | null;
  /** The login user of the connection. */
  login: string | null;
  /** Whether changes get root there: `root` (root login), `sudo` (`sudo -n` answered), or the refusal's code. */
  root: "root" | "sudo" | "sudo_password_required" | "privilege_unavailable" | null;
  /** How systemd is reached: its D-Bus over systemd-stdio-bridge, systemctl text, or none. */
  systemd: "dbus_bridge" | "systemctl" | "none" | null;
  /** Distro family from the remote os-release (e.g. debian, rhel, arch). */
  family: string | null;
  /** The error that stopped the check (code and message), else null. */
  error: { code: string; message: string; hint?: string | undefined } | null;
}

/** Options of {@link checkHosts}: hosts dialed at once, and each host's whole budget in ms. */
export interface CheckHostsOptions {
  concurrency?: number;
  timeoutMs?: number;
}

const KEY_STATES: Record<string, HostReport["host_key"]> = { host_key_unknown: "unknown", host_key_mismatch: "mismatch" };

/**
 * Dials every inventory host of `config` (every backend's `search_hosts` list), at most `concurrency` at once
 * (default `exec.fanout_concurrency`), each bounded by `timeoutMs` (default 15 000): builds the host's context as
 * the daemon does (daemon/remote-contexts.ts: probe, os-release, systemd detection) and asks whether it gets root
 * (`sudo -n id -u` for `become: sudo`). One report per host, in inventory order; a host that fails is a report with
 * `error`, never a throw. Throws only when the config's hosts section does not compose (zod error).
 */
export async function checkHosts(config: Config, opts: CheckHostsOptions = {}): Promise<HostReport[]> {
  const [{ composeHosts }, { sshRemoteContexts }, { stateDir }] = await Promise.all([import("../daemon/hosts.ts"), import("../daemon/remote-contexts.ts"), import("../daemon/paths.ts")]);
  const h = composeHosts({ ...config, exec: { ...config.exec, host_keys: "strict" } }, { mode: "embedded", stateDir: stateDir("embedded", config.state.dir) });
  try {
    const listed = await h.inventory.search({ limit: 1000 });
    const names = [...new Set(listed.records.map((x) => x.name))];
    const clock = { now: () => Date.now() };
    const factory = sshRemoteContexts({
      feature: () => Promise.resolve({ hosts: { ...h, policy: null, engine: new Promise<never>(() => undefined) }, pool: h.executor.pool }),
      logs_readable: { kind: "all" },
      clock,
    });
    const timeout = opts.timeoutMs ?? 15_000;
    const one = async (name: string): Promise<HostReport> => {
      const report: HostReport = { host: name, reachable: false, host_key: null, login: null, root: null, systemd: null, family: null, error: null };
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          (async () => {
            const record = await h.inventory.resolveTarget(name);
            const built = await factory(record);
            const c = built.ctx.connection!;
            const facts = await c.facts();
            Object.assign(report, { reachable: true, host_key: "known", login: facts.ssh_user, systemd: c.systemd.path, family: built.ctx.family });
            try {
              const p = await c.privilege();
              report.root = p.ok ? p.via : p.code;
              if (!p.ok) report.error = { code: p.code, message: p.message, hint: p.hint };
            } finally {
              built.close?.();
            }
          })(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => { reject(new HostgateError("timeout", `${name} did not answer within ${Math.round(timeout / 1000)} s.`)); }, timeout);
          }),
        ]);
      } catch (err) {
        const e = toHostgateError(err);
        report.host_key ??= KEY_STATES[e.code] ?? null;
        report.error = { code: e.code, message: e.message, hint: e.hint };
      } finally {
        clearTimeout(timer);
      }
      return report;
    };
    const out = new Array<HostReport>(names.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < names.length) {
        const i = next++;
        out[i] = await one(names[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? h.settings.fanout_concurrency, names.length) }, worker));
    return out;
  } finally {
    h.close();
  }
}

/** One doctor line per host: `ok` when reachable with root and systemd, `warn` for a partial host, `fail` when not reached. */
export function hostLines(reports: readonly HostReport[]): DoctorLine[] {
  return reports.map((r) => {
    if (!r.reachable) {
      const key = r.host_key === null ? "" : `, host key ${r.host_key}`;
      return { section: "hosts", name: r.host, status: "fail", detail: `not reachable${key}: ${r.error?.message ?? "unknown error"}`, fix: r.error?.hint };
    }
    const detail = `reachable, host key known, login ${r.login}, root: ${r.root ?? "unknown"}, systemd: ${r.systemd}, family: ${r.family}`;
    const partial = r.root !== "root" && r.root !== "sudo";
    return { section: "hosts", name: r.host, status: partial ? "warn" : "ok", detail, fix: partial ? r.error?.hint : undefined };
  });
}
