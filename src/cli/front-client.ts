import type { Config } from "../config/schema.ts";
import type { DaemonClient } from "../ipc/client.ts";
import { log } from "./common.ts";

/**
 * The daemon the MCP front talks to, by the rule `hostgate approve` also follows (daemon/locate.ts): the
 * socket named by HOSTGATE_SOCKET or `daemon.socket` (with HOSTGATE_TOKEN / `daemon.token` for tcp://), else
 * this user's running embedded daemon, else a running system daemon, else the embedded daemon started here.
 * Same interface either way; the embedded one survives the exit of whichever front runs it.
 */
export async function openFrontClient(config: Config, env: NodeJS.ProcessEnv = process.env, skills: { install: boolean; exec: boolean } = { install: false, exec: false }, say: (line: string) => void = log): Promise<{ client: DaemonClient; close: () => Promise<void> }> {
  const [{ locateDaemon }, { socketIsLive }] = await Promise.all([import("../daemon/locate.ts"), import("../ipc/server.ts")]);
  const where = await locateDaemon(config, socketIsLive, env);
  if (where.kind !== "embedded") {
    const { socketDaemonClient } = await import("../ipc/socket-client.ts");
    const client = socketDaemonClient(where.agent, env.HOSTGATE_TOKEN || config.daemon.token);
    say(`using the hostgate daemon at ${where.agent} (${where.reason}); approve with: hostgate approve <transaction_id>${where.admin ? ` (admin socket ${where.admin})` : " --socket <its admin socket>"}`);
    return { client, close: () => client.close() };
  }
  const { startEmbeddedDaemon } = await import("../daemon/embedded.ts");
  const embedded = await startEmbeddedDaemon(config, { announce: say, skills });
  say(embedded.role === "daemon" ? `embedded daemon; approve with: hostgate approve <transaction_id> (admin socket ${embedded.adminSocket})` : `using this user's running embedded daemon at ${embedded.agentSocket}`);
  return { client: embedded.client, close: () => embedded.close() };
}
