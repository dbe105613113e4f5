import { statSync } from "node:fs";

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
