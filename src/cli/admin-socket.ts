import type { Config } from "../config/schema.ts";
import { locateDaemon, otherDaemonHint } from "../daemon/locate.ts";
import { socketIsLive } from "../ipc/server.ts";

/**
 * Where `hostgate approve|reject` finds the admin socket: --socket, else the admin socket of the daemon the MCP
 * fronts use, found by the same rule (daemon/locate.ts: HOSTGATE_ADMIN_SOCKET; HOSTGATE_SOCKET / daemon.socket;
 * this user's running embedded daemon; a running system daemon; the embedded default). `hint` says which
 * daemon was asked and how to point at the other, for "no such transaction" answers.
 */
export async function adminSocketPath(flag: string | undefined, config: Pick<Config, "daemon" | "state">, env: NodeJS.ProcessEnv = process.env): Promise<{ path: string; hint: string }> {
  const where = await locateDaemon(config, socketIsLive, env);
  if (flag) return { path: flag, hint: otherDaemonHint(flag, { ...where, reason: "--socket names it" }) };
  if (where.admin === null) {
    return { path: where.embedded.admin, hint: `The fronts use ${where.agent} (${where.reason}), whose admin socket cannot be derived: pass --socket PATH or set HOSTGATE_ADMIN_SOCKET.` };
  }
  return { path: where.admin, hint: otherDaemonHint(where.admin, where) };
}

/**
 * The daemon hint (`adminSocketPath`'s `hint`: which daemon was asked, how to name another) to print after a failed
 * admin call, or "" when it does not apply: only when no daemon answered (`unavailable`). A socket that refused this
 * user (`details.cause` permission_denied, ipc/socket-client.ts) is a daemon that is there: its error's own hint says
 * how to get access (the group, or sudo), and "another daemon" would mislead (review s24).
 */
export function daemonHintAfter(error: { code: string; details?: Record<string, unknown> | undefined }, target: { hint: string }): string {
  if (error.code !== "unavailable" || error.details?.cause === "permission_denied") return "";
  return `${target.hint}\n`;
}
