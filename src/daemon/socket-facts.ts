import { statSync } from "node:fs";
import type { AdminSocketAccess } from "../core/approver.ts";

/**
 * Records, for doctor, who can reach the daemon's sockets as the kernel says after they were created: owner
 * uid, group gid and mode of the agent and admin sockets (`agent_socket`, `admin_socket` facts, e.g.
 * `/run/hostgate/admin.sock uid=0 gid=0 mode=0600`). Missing sockets are recorded as such.
 */
export function recordSocketFacts(facts: Record<string, string>, agentPath: string, adminPath: string): void {
  for (const [key, path] of [["agent_socket", agentPath], ["admin_socket", adminPath]] as const) {
    try {
      const st = statSync(path);
      facts[key] = `${path} uid=${st.uid} gid=${st.gid} mode=${(st.mode & 0o777).toString(8).padStart(4, "0")}`;
    } catch (err) {
      facts[key] = `${path} (cannot stat: ${(err as Error).message})`;
    }
  }
}

/**
 * The admin socket at `path` as the kernel reports it (core/approver.ts AdminSocketAccess), `group` being
 * daemon.admin_group's name when the daemon gave the socket that group (`adminGid`); null when it cannot be stat'd.
 */
export function adminSocketAccess(path: string, adminGroup: string | undefined, adminGid: number | undefined): AdminSocketAccess | null {
  try {
    const st = statSync(path);
    return { uid: st.uid, gid: st.gid, perm: st.mode & 0o777, group: adminGroup !== undefined && adminGid !== undefined && st.gid === adminGid ? adminGroup : null };
  } catch {
    return null;
  }
}
