import { existsSync } from "node:fs";
import { join } from "node:path";
import { runtimeDir, stateDir } from "../daemon/paths.ts";

/**
 * Where `hostgate approve|reject` finds the admin socket: --socket, else HOSTGATE_ADMIN_SOCKET, else the
 * system daemon's /run/hostgate/admin.sock when it exists, else this user's embedded daemon's.
 */
export function adminSocketPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return flag;
  if (env.HOSTGATE_ADMIN_SOCKET) return env.HOSTGATE_ADMIN_SOCKET;
  const system = join(runtimeDir("system", "", env), "admin.sock");
  if (existsSync(system)) return system;
  return join(runtimeDir("embedded", stateDir("embedded", undefined, env), env), "admin.sock");
}
