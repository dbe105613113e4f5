import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import type { DaemonClient } from "../ipc/client.ts";
import { serveIpc, socketIsLive, type IpcListener } from "../ipc/server.ts";
import { socketDaemonClient } from "../ipc/socket-client.ts";
import { readPeerCredentials } from "../adapters/peer-credentials.ts";
import { recordSocketFacts } from "./socket-facts.ts";
import { composeDaemon, type ComposeOptions, type ComposedDaemon } from "./compose.ts";

/** An embedded daemon as the MCP front holds it. */
export interface EmbeddedDaemon {
  client: DaemonClient;
  /** "daemon": this process runs it; "client": another embedded hostgate of this user does, reached over its socket. */
  role: "daemon" | "client";
  agentSocket: string;
  adminSocket: string;
  composed: ComposedDaemon | null;
  close(): Promise<void>;
}

/**
 * The zero-setup default (DESIGN.md, embedded mode): the daemon runs inside `hostgate mcp` / `hostgate serve`
 * for one user, with state under $XDG_STATE_HOME/hostgate and its sockets under $XDG_RUNTIME_DIR/hostgate,
 * so `hostgate approve` reaches it. When another embedded hostgate of the same user already runs the daemon,
 * this process connects to it instead: one audit chain, one writer.
 */
export async function startEmbeddedDaemon(config: Config, opts: Omit<ComposeOptions, "mode"> = {}): Promise<EmbeddedDaemon> {
  const composed = await composeDaemon(config, { ...opts, mode: "embedded" });
  const agentSocket = config.daemon.agent_socket ?? join(composed.runtimeDir, "agent.sock");
  const adminSocket = config.daemon.admin_socket ?? join(composed.runtimeDir, "admin.sock");
  const asClient = async (): Promise<EmbeddedDaemon> => {
    await composed.close();
    const client = socketDaemonClient(agentSocket);
    return { client, role: "client", agentSocket, adminSocket, composed: null, close: () => client.close() };
  };
  if (await socketIsLive(agentSocket)) return asClient();
  const listeners: IpcListener[] = [];
  const dispatcher = composed.service.dispatcher;
  const serveOpts = { peerCredentials: readPeerCredentials };
  try {
    listeners.push(await serveIpc({ kind: "unix", path: agentSocket, mode: 0o600 }, "agent", dispatcher, serveOpts));
    listeners.push(await serveIpc({ kind: "unix", path: adminSocket, mode: 0o600 }, "admin", dispatcher, serveOpts));
    recordSocketFacts(composed.service.deps.facts, agentSocket, adminSocket);
  } catch (err) {
    await Promise.all(listeners.map((l) => l.close()));
    if (await socketIsLive(agentSocket)) return asClient();
    throw err;
  }
  // SIGHUP reloads the exec policies of the embedded daemon too (stderr says what happened).
  const onHup = (): void => { void composed.reloadPolicy().then((line) => process.stderr.write(`hostgate: ${line}\n`), () => undefined); };
  process.on("SIGHUP", onHup);
  return {
    client: composed.service.agent("mcp", { role: "operator", socket: "in_process", peer: { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1, pid: process.pid }, client_name: null, label: "mcp" }),
    role: "daemon",
    agentSocket,
    adminSocket,
    composed,
    close: async () => {
      process.off("SIGHUP", onHup);
      await Promise.all(listeners.map((l) => l.close()));
      await composed.close();
    },
  };
}
