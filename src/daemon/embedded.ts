import { createHash } from "node:crypto";
import { createServer, type Server } from "node:net";
import type { Config } from "../config/schema.ts";
import type { DaemonClient } from "../ipc/client.ts";
import { METHODS } from "../ipc/methods.ts";
import type { Outcome } from "../ipc/protocol.ts";
import { serveIpc, socketIsLive, type IpcListener } from "../ipc/server.ts";
import { socketDaemonClient } from "../ipc/socket-client.ts";
import { readPeerCredentials } from "../adapters/peer-credentials.ts";
import { recordSocketFacts } from "./socket-facts.ts";
import type { ComposeOptions, ComposedDaemon } from "./compose.ts";
import { embeddedSockets } from "./locate.ts";

/** An embedded daemon as the MCP front holds it. */
export interface EmbeddedDaemon {
  /** Always usable: when the process that runs the daemon goes away, this front takes over (see below). */
  client: DaemonClient;
  /** Right now: "daemon" when this process runs it, "client" when another front of this user does. */
  readonly role: "daemon" | "client";
  agentSocket: string;
  adminSocket: string;
  /** This process's composition while it runs the daemon, else null. */
  readonly composed: ComposedDaemon | null;
  close(): Promise<void>;
}

/** How long a front waits for the front that won the election to listen, in milliseconds. */
const OWNER_START_MS = 10_000;

/** One way this process currently reaches the daemon. */
interface Link {
  role: "daemon" | "client";
  client: DaemonClient;
  composed: ComposedDaemon | null;
  close(): Promise<void>;
}

/**
 * Who runs the daemon is decided by binding an abstract Unix socket named after the agent socket: the kernel
 * lets one process bind it and frees it when that process dies, so there is no stale lock after a crash and
 * no race between two fronts taking over at once. Resolves with the held server, or null when another
 * process holds it.
 */
function claimOwnership(agentSocket: string): Promise<Server | null> {
  const name = `\0hostgate-owner-${createHash("sha256").update(agentSocket).digest("hex").slice(0, 32)}`;
  return new Promise((resolve) => {
    const server = createServer((c) => { c.destroy(); });
    server.once("error", () => { resolve(null); });
    server.listen(name, () => { server.unref(); resolve(server); });
  });
}

/** Methods that only read (the table's observer methods): safe to send again after a takeover. */
const retrySafe = (method: string): boolean => (METHODS as Record<string, { min_role: string }>)[method]?.min_role === "observer";

/**
 * The zero-setup default (DESIGN.md, embedded mode): the daemon runs inside `hostgate mcp` / `hostgate serve`
 * for one user, with state under $XDG_STATE_HOME/hostgate and its sockets under $XDG_RUNTIME_DIR/hostgate,
 * so `hostgate approve` reaches it. One front of the user runs it (the one that wins the ownership election);
 * the others connect to its agent socket: one audit chain, one writer.
 *
 * No front breaks another (issue 14): when the running front goes away (exit, crash, kill), a front that
 * was its client finds its connection closed, takes over (wins the election and starts the daemon on the
 * same state, or connects to the front that did) and sends the call again when it only reads (observer
 * methods). A `plan` or `execute` cut by the owner's exit is not resent (it may have been recorded or run);
 * it answers `daemon_restarted`, which says to check `history` first.
 */
export async function startEmbeddedDaemon(config: Config, opts: Omit<ComposeOptions, "mode"> = {}): Promise<EmbeddedDaemon> {
  const { agent: agentSocket, admin: adminSocket } = embeddedSockets(config);
  let ownership: Server | null = null;
  let closed = false;

  const connect = (): Link => {
    const client = socketDaemonClient(agentSocket);
    return { role: "client", client, composed: null, close: () => client.close() };
  };
  const own = async (): Promise<Link> => {
    // Loaded here, not at import: a front that joins another front's daemon never needs the composition.
    const { composeDaemon } = await import("./compose.ts");
    const composed = await composeDaemon(config, { ...opts, mode: "embedded" });
    const listeners: IpcListener[] = [];
    const dispatcher = composed.service.dispatcher;
    const serveOpts = { peerCredentials: readPeerCredentials };
    try {
      listeners.push(await serveIpc({ kind: "unix", path: agentSocket, mode: 0o600 }, "agent", dispatcher, serveOpts));
      listeners.push(await serveIpc({ kind: "unix", path: adminSocket, mode: 0o600 }, "admin", dispatcher, serveOpts));
      recordSocketFacts(composed.service.deps.facts, agentSocket, adminSocket);
    } catch (err) {
      await Promise.all(listeners.map((l) => l.close()));
      await composed.close();
      throw err;
    }
    // SIGHUP reloads the exec policies of the embedded daemon too (stderr says what happened).
    const onHup = (): void => { void composed.reloadPolicy().then((line) => process.stderr.write(`hostgate: ${line}\n`), () => undefined); };
    process.on("SIGHUP", onHup);
    return {
      role: "daemon",
      client: composed.service.agent("mcp", { role: "operator", socket: "in_process", peer: { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1, pid: process.pid }, client_name: null, label: "mcp" }),
      composed,
      close: async () => {
        process.off("SIGHUP", onHup);
        await Promise.all(listeners.map((l) => l.close()));
        await composed.close();
      },
    };
  };
  /**
   * Connects to the running daemon, or wins the election and runs it; while another front holds the election
   * without listening yet (starting, or exiting), tries both again until OWNER_START_MS pass.
   */
  const establish = async (): Promise<Link> => {
    for (const end = Date.now() + OWNER_START_MS; ;) {
      if (await socketIsLive(agentSocket)) return connect();
      ownership ??= await claimOwnership(agentSocket);
      if (ownership) return own();
      if (Date.now() > end) throw new Error(`Another hostgate front holds the embedded daemon election for ${agentSocket} but does not listen there.`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  let link = await establish();
  let takeover: Promise<void> | null = null;
  const takeOver = (lost: Link): Promise<void> => {
    takeover ??= (async () => {
      if (link !== lost || closed) return;
      await lost.close().catch(() => undefined);
      link = await establish();
      opts.announce?.(link.role === "daemon" ? `the front that ran the embedded daemon went away; this one runs it now (admin socket ${adminSocket})` : `reconnected to the embedded daemon at ${agentSocket}`);
    })().finally(() => { takeover = null; });
    return takeover;
  };

  /** Whether an answer says the connection to the daemon was lost (the socket client names the address then; a daemon's own `unavailable` does not). */
  const lostConnection = (via: Link, r: Outcome<unknown>): boolean =>
    !r.ok && via.role === "client" && r.error.code === "unavailable" && r.error.message.includes(`daemon at ${agentSocket}`);

  const client: DaemonClient = {
    call: async (method, params, callOpts) => {
      for (let attempt = 0; ; attempt++) {
        if (takeover) await takeover.catch(() => undefined);
        const via = link;
        const r = await via.client.call(method, params, callOpts);
        if (!lostConnection(via, r)) return r;
        try {
          await takeOver(via);
        } catch (err) {
          return { ok: false, error: { code: "unavailable", message: `The embedded daemon went away and could not be restarted: ${(err as Error).message}`, hint: "Restart this MCP server, or run `hostgate doctor`." } };
        }
        // A daemon that was itself exiting may drop the retry too: try a few times, reads only.
        if (retrySafe(method) && attempt < 3) continue;
        if (retrySafe(method)) return r;
        const lostCall: Outcome<never> = { ok: false, error: {
          code: "daemon_restarted",
          message: `The front that ran the embedded daemon exited during this ${method}; this front now uses the daemon at ${agentSocket}. The ${method} may or may not have taken effect.`,
          hint: method === "execute" ? "Check history for the transaction's state (unknown means it may have run) before doing anything else." : "Check history for the planned transactions before planning again.",
        } };
        return lostCall;
      }
    },
    close: async () => {
      closed = true;
      await link.close();
      ownership?.close();
    },
  };
  return {
    client,
    get role() { return link.role; },
    agentSocket,
    adminSocket,
    get composed() { return link.composed; },
    close: () => client.close(),
  };
}
