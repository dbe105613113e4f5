import type { Config } from "../config/schema.ts";
import type { DaemonClient } from "../ipc/client.ts";
import { log } from "./common.ts";

/**
 * The daemon the MCP front talks to: the socket named by HOSTGATE_SOCKET or `daemon.socket` (with
 * HOSTGATE_TOKEN / `daemon.token` for tcp://), otherwise the embedded daemon. Same interface either way.
 */
export async function openFrontClient(config: Config, env: NodeJS.ProcessEnv = process.env, skills: { install: boolean; exec: boolean } = { install: false, exec: false }, say: (line: string) => void = log): Promise<{ client: DaemonClient; close: () => Promise<void> }> {
  const socket = env.HOSTGATE_SOCKET || config.daemon.socket;
  if (socket) {
    const { socketDaemonClient } = await import("../ipc/socket-client.ts");
    const client = socketDaemonClient(socket, env.HOSTGATE_TOKEN || config.daemon.token);
    say(`using the hostgate daemon at ${socket}`);
    return { client, close: () => client.close() };
  }
  const { startEmbeddedDaemon } = await import("../daemon/embedded.ts");
  const embedded = await startEmbeddedDaemon(config, { announce: say, skills });
  say(embedded.role === "daemon" ? `embedded daemon; approve with: hostgate approve <transaction_id> (admin socket ${embedded.adminSocket})` : `using this user's running embedded daemon at ${embedded.agentSocket}`);
  return { client: embedded.client, close: () => embedded.close() };
}
