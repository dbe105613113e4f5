import { capabilitiesOf } from "../core/catalogue/needs.ts";
import type { HostEntry } from "./hosts.ts";
import type { HostSystemdView } from "../ipc/protocol.ts";

/** How a systemd path reads in doctor: `box: D-Bus bridge (…)`. */
const LABEL: Record<HostSystemdView["systemd"], string> = { dbus_bridge: "D-Bus bridge", systemctl: "systemctl fallback", none: "none", unknown: "unknown" };

/**
 * The systemd path of every inventory host whose context is built (issue 20), for doctor and describe, from what
 * each context found when it was built (HostConnection.systemd): `dbus_bridge` (its own D-Bus through
 * systemd-stdio-bridge over SSH), `systemctl` (systemctl's text output), `none` (PID 1 is not systemd), or
 * `unknown` for a host whose typed ports could not be built (it offers approved commands only; `detail` says
 * why). Dials nothing: hosts not yet contacted are not in `entries`.
 */
export function hostSystemdViews(entries: readonly HostEntry[]): HostSystemdView[] {
  return entries.map((e) => {
    const c = e.ctx.connection;
    const base = { host: e.id, hostname: e.hostname, family: e.ctx.family, capabilities: [...capabilitiesOf(e.ctx)] };
    if (c) return { ...base, systemd: c.systemd.path, detail: c.systemd.detail };
    return { ...base, systemd: "unknown", detail: e.ctx.capabilities_note ?? "its typed ports were not built: approved commands only" };
  });
}

/**
 * doctor's "remote systemd" line: each built host's path and why, then the rule for the others. doctor never
 * dials: an inventory host is contacted at its first typed call (a direct tool or plan with `host`), which
 * finds its path; until then it is "not yet contacted".
 */
export function hostSystemdDetail(views: readonly HostSystemdView[]): string {
  const others = "every other inventory host: not yet contacted (its systemd path is found at its first typed call with host; doctor dials no host)";
  if (views.length === 0) return `no inventory host contacted yet; ${others}`;
  return `${views.map((v) => `${v.host}: ${LABEL[v.systemd]} (${v.detail})`).join("; ")}; ${others}`;
}
