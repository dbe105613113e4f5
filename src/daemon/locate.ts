import { dirname, join } from "node:path";
import type { Config } from "../config/schema.ts";
import { runtimeDir, stateDir } from "./paths.ts";

/** Where one daemon listens, and why it was chosen. */
export interface DaemonLocation {
  /** `configured`: named by HOSTGATE_SOCKET / daemon.socket; `embedded`: this user's; `system`: `hostgate daemon`'s. */
  kind: "configured" | "embedded" | "system";
  /** The agent socket (path or tcp://host:port) the MCP fronts use. */
  agent: string;
  /** The admin socket `hostgate approve|reject` use; null when it cannot be derived (tcp:// without HOSTGATE_ADMIN_SOCKET). */
  admin: string | null;
  /** Why this daemon, in one clause, for messages ("HOSTGATE_SOCKET names it", "this user's embedded daemon is running"…). */
  reason: string;
  /** This user's embedded daemon's sockets (for hints naming the other daemon). */
  embedded: { agent: string; admin: string };
  /** The system daemon's sockets. */
  system: { agent: string; admin: string };
}

/** This user's embedded daemon's sockets: `daemon.agent_socket` / `daemon.admin_socket`, else in its runtime dir. */
export function embeddedSockets(config: Pick<Config, "daemon" | "state">, env: NodeJS.ProcessEnv = process.env): { agent: string; admin: string } {
  const runtime = runtimeDir("embedded", stateDir("embedded", config.state.dir, env), env);
  return { agent: config.daemon.agent_socket ?? join(runtime, "agent.sock"), admin: config.daemon.admin_socket ?? join(runtime, "admin.sock") };
}

/**
 * The one rule by which the MCP fronts and `hostgate approve|reject` find the daemon (issue 14), so a plan made
 * through a front is always known to the approve that follows:
 * 1. HOSTGATE_SOCKET or `daemon.socket` names it (admin: HOSTGATE_ADMIN_SOCKET, else admin.sock beside a
 *    Unix agent socket);
 * 2. else this user's embedded daemon when its agent socket answers (`daemon.agent_socket` /
 *    `daemon.admin_socket`, else `<runtime dir>/agent.sock` and `admin.sock`, runtime dir as daemon/paths.ts);
 * 3. else the system daemon (`hostgate daemon`) when its agent socket answers this user;
 * 4. else this user's embedded daemon, not running yet (a front starts it; approve says nothing runs).
 * HOSTGATE_DAEMON pins steps 2–4 (issue 22; `hostgate setup` writes it into each stdio client entry): `embedded`
 * always this user's embedded daemon, so a system daemon installed later does not silently take the user's plans;
 * `system` always the system daemon (calls fail `unavailable` while it is down). Any other value throws, saying
 * which are allowed.
 * `isLive` probes a Unix socket (ipc/server.ts socketIsLive). HOSTGATE_ADMIN_SOCKET, when set, is the admin socket
 * whatever the rule chose.
 */
export async function locateDaemon(config: Pick<Config, "daemon" | "state">, isLive: (path: string) => Promise<boolean>, env: NodeJS.ProcessEnv = process.env): Promise<DaemonLocation> {
  const embedded = embeddedSockets(config, env);
  const systemDir = runtimeDir("system", "", env);
  const system = { agent: join(systemDir, "agent.sock"), admin: join(systemDir, "admin.sock") };
  const adminOverride = env.HOSTGATE_ADMIN_SOCKET || null;
  const base = { embedded, system };
  const named = env.HOSTGATE_SOCKET || config.daemon.socket;
  if (named) {
    const admin = adminOverride ?? (named.startsWith("tcp://") || named.startsWith("vsock://") ? null : join(dirname(named), "admin.sock"));
    return { ...base, kind: "configured", agent: named, admin, reason: `${env.HOSTGATE_SOCKET ? "HOSTGATE_SOCKET" : "daemon.socket in the config"} names it` };
  }
  const pin = env.HOSTGATE_DAEMON || undefined;
  if (pin !== undefined && pin !== "embedded" && pin !== "system") {
    throw new Error(`HOSTGATE_DAEMON is ${JSON.stringify(pin)}: set it to embedded (this user's daemon) or system (hostgate daemon), or unset it to take whichever runs.`);
  }
  if (pin === "system") return { ...base, kind: "system", agent: system.agent, admin: adminOverride ?? system.admin, reason: "HOSTGATE_DAEMON=system pins the system daemon" };
  if (pin === "embedded") return { ...base, kind: "embedded", agent: embedded.agent, admin: adminOverride ?? embedded.admin, reason: "HOSTGATE_DAEMON=embedded pins this user's embedded daemon" };
  if (await isLive(embedded.agent)) return { ...base, kind: "embedded", agent: embedded.agent, admin: adminOverride ?? embedded.admin, reason: "this user's embedded daemon is running" };
  if (system.agent !== embedded.agent && await isLive(system.agent)) {
    return { ...base, kind: "system", agent: system.agent, admin: adminOverride ?? system.admin, reason: "the system daemon (hostgate daemon) is running and no embedded one is" };
  }
  return { ...base, kind: "embedded", agent: embedded.agent, admin: adminOverride ?? embedded.admin, reason: "no daemon is running; this user's embedded daemon is the default" };
}

/**
 * The sentence added to every "no such transaction" a human reads: which daemon was asked, and how to point at
 * the other one.
 */
export function otherDaemonHint(asked: string, where: DaemonLocation): string {
  const others = [where.embedded.admin, where.system.admin].filter((p) => p !== asked);
  return `Asked the daemon at ${asked} (${where.reason}). A plan made through another daemon is only known there: pass the configuration file that front was started with (--config FILE), or point at its admin socket with --socket PATH or HOSTGATE_ADMIN_SOCKET${others.length > 0 ? ` (${others.map((p) => (p === where.system.admin ? `system daemon: ${p}` : `this user's embedded daemon: ${p}`)).join("; ")})` : ""}.`;
}
