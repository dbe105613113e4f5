import { chmodSync, chownSync, existsSync, unlinkSync, mkdirSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { dirname } from "node:path";
import { MAX_CLIENT_NAME, type Caller, type PeerCredentials } from "../core/caller.ts";
import type { Dispatcher } from "./dispatch.ts";
import { tokenEquals } from "./http-guards.ts";
import { PROTOCOL_VERSION } from "./protocol.ts";
import { IpcCancelSchema, IpcRequestSchema, lineReader, type IpcProgressLine, type IpcResponse, type Progress } from "./wire.ts";

/** Where a daemon listens: a Unix socket path (with file mode), or tcp://host:port with a required token. */
export type ListenSpec =
  | { kind: "unix"; path: string; mode: number; gid?: number | undefined }
  | { kind: "tcp"; host: string; port: number; token: string };

/**
 * Parses a listen URI: an absolute path or unix:PATH, tcp://HOST:PORT (token required), and vsock://…, which
 * is refused: Node.js has no AF_VSOCK sockets, and we do not pretend. Throws Error with what to do instead.
 */
export function parseListenUri(uri: string, token: string | undefined): { kind: "unix"; path: string } | { kind: "tcp"; host: string; port: number; token: string } {
  if (uri.startsWith("vsock://")) {
    throw new Error(`${uri}: vsock is not supported as a listener (Node.js has no AF_VSOCK sockets). On the VM, "sudo hostgate daemon install --vsock PORT" makes systemd listen on vsock and forward to the agent socket; or tunnel the Unix socket over SSH: ssh -fN -L /tmp/hostgate.sock:/run/hostgate/agent.sock user@vm, then HOSTGATE_SOCKET=/tmp/hostgate.sock.`);
  }
  if (uri.startsWith("tcp://")) {
    const m = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):(\d{1,5})$/.exec(uri);
    if (!m || Number(m[2]) > 65535) throw new Error(`${uri}: expected tcp://HOST:PORT, e.g. tcp://127.0.0.1:7420.`);
    if (!token || token.length < 32) throw new Error(`${uri}: a tcp:// listener needs a token of at least 32 characters (daemon.token or HOSTGATE_TOKEN).`);
    return { kind: "tcp", host: m[1]!.replace(/^\[|\]$/g, ""), port: Number(m[2]), token };
  }
  const path = uri.startsWith("unix:") ? uri.slice(5) : uri;
  if (!path.startsWith("/")) throw new Error(`${uri}: expected an absolute socket path, unix:PATH or tcp://HOST:PORT.`);
  return { kind: "unix", path };
}


/** Whether something accepts connections on a Unix socket path right now. */
export function socketIsLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once("connect", () => { probe.destroy(); resolve(true); });
    probe.once("error", () => { resolve(false); });
  });
}

/**
 * Whether a daemon is at a Unix socket path, as this user meets it: `live` (it accepts the connection), `refused`
 * (connect(2) fails EACCES: a socket, or the directory to it, that this user may not open — a daemon may well be
 * listening; the message must say how to get access, not that none runs), `none` (nothing listens: ENOENT,
 * ECONNREFUSED…).
 */
export function socketAnswer(path: string): Promise<"live" | "refused" | "none"> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once("connect", () => { probe.destroy(); resolve("live"); });
    probe.once("error", (err: NodeJS.ErrnoException) => { resolve(err.code === "EACCES" ? "refused" : "none"); });
  });
}

/** Removes a socket file left by a dead daemon; refuses when a live daemon still answers on it. */
async function clearStaleSocket(path: string): Promise<void> {
  if (!existsSync(path)) return;
  if (await socketIsLive(path)) throw new Error(`Another hostgate daemon is listening on ${path}. Stop it first, or point this one elsewhere.`);
  unlinkSync(path);
}

/** A running listener. */
export interface IpcListener {
  address: string;
  close(): Promise<void>;
}

/** Options of {@link serveIpc}. */
export interface ServeOptions {
  /** Reads the kernel's peer credentials of an accepted Unix-socket connection (adapters/peer-credentials.ts); absent or null: unknown. */
  peerCredentials?: (socket: Socket) => PeerCredentials | null;
}

/** The caller of one connection: role from the socket (agent.sock and tcp:// operator, admin.sock admin), peer from the kernel. */
export function callerFor(spec: ListenSpec, side: "agent" | "admin", peer: PeerCredentials | null): Caller {
  return {
    role: side === "admin" ? "admin" : "operator",
    socket: spec.kind === "tcp" ? "tcp" : side,
    peer,
    client_name: null,
    label: side === "admin" ? "admin" : spec.kind === "tcp" ? "tcp" : "agent",
  };
}

/**
 * Serves the daemon protocol on one socket for one side. Each connection gets one {@link Caller} (role from
 * the side, peer uid/gid/pid from the kernel on Unix sockets); the method table's checks run in the
 * dispatcher (ipc/dispatch.ts): agent sockets answer agent methods, admin sockets admin methods, anything else
 * is `forbidden_method` (e.g. approve over agent.sock). Every request is validated (envelope, protocol
 * version, params schema) before it reaches a handler; one bad request never closes the connection, a bad
 * token on tcp:// does. A request's `client` (the MCP client's name) is recorded, untrusted.
 */
export async function serveIpc(spec: ListenSpec, side: "agent" | "admin", dispatcher: Dispatcher, opts: ServeOptions = {}): Promise<IpcListener> {
  const sockets = new Set<Socket>();
  const handle = async (line: string, caller: Caller, inflight: Map<number | string, AbortController>, send: (line: string) => void): Promise<IpcResponse | null> => {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return { v: PROTOCOL_VERSION, id: null, ok: false, error: { code: "protocol_error", message: "The message is not JSON." } };
    }
    const cancel = IpcCancelSchema.safeParse(raw);
    if (cancel.success) {
      inflight.get(cancel.data.cancel)?.abort();
      return null;
    }
    const id = typeof raw === "object" && raw !== null && "id" in raw && (typeof raw.id === "number" || typeof raw.id === "string") ? raw.id : null;
    const req = IpcRequestSchema.safeParse(raw);
    if (!req.success) {
      const v = (raw as { v?: unknown } | null)?.v;
      const message = v !== PROTOCOL_VERSION ? `Protocol version ${JSON.stringify(v)} is not ${PROTOCOL_VERSION}: update hostgate on both sides.` : `Malformed request: ${req.error.issues.map((i) => i.message).join("; ")}`;
      return { v: PROTOCOL_VERSION, id, ok: false, error: { code: "protocol_error", message } };
    }
    if (spec.kind === "tcp" && !tokenEquals(req.data.token ?? "", spec.token)) {
      // Two texts (issue 25): a front with no token needs one set; a front with a token needs the right one.
      const error = req.data.token
        ? { code: "unauthorized" as const, message: `Wrong token: the token sent is not the daemon's daemon.token (at ${spec.host}:${spec.port}).`, hint: "Set HOSTGATE_TOKEN in the front's environment to exactly the daemon's daemon.token (no added space or newline)." }
        : { code: "unauthorized" as const, message: `No token sent: the daemon's tcp:// listener (${spec.host}:${spec.port}) needs its daemon.token.`, hint: "Set HOSTGATE_TOKEN in the front's environment (or daemon.token in its config) to the daemon's daemon.token." };
      return { v: PROTOCOL_VERSION, id, ok: false, error };
    }
    const who = req.data.client ? { ...caller, client_name: req.data.client.slice(0, MAX_CLIENT_NAME) } : caller;
    const ac = new AbortController();
    inflight.set(req.data.id, ac);
    try {
      // Progress lines only for a request that asked (an older client would take one for the answer).
      const reqId = req.data.id;
      const progress = req.data.progress ? (p: Progress): void => { send(`${JSON.stringify({ v: PROTOCOL_VERSION, id: reqId, progress: p } satisfies IpcProgressLine)}\n`); } : undefined;
      const r = await dispatcher.dispatch(req.data.method, req.data.params, who, ac.signal, progress, req.data.trace);
      return r.ok ? { v: PROTOCOL_VERSION, id, ok: true, result: r.result } : { v: PROTOCOL_VERSION, id, ok: false, error: r.error };
    } catch (err) {
      return { v: PROTOCOL_VERSION, id, ok: false, error: { code: "internal_error", message: (err as Error).message } };
    } finally {
      inflight.delete(req.data.id);
    }
  };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let peer: PeerCredentials | null = null;
    if (spec.kind === "unix" && opts.peerCredentials) {
      try { peer = opts.peerCredentials(socket); } catch { peer = null; }
    }
    const caller = callerFor(spec, side, peer);
    // In-flight requests of this connection by id, so a cancel message can abort one; all abort when it closes.
    const inflight = new Map<number | string, AbortController>();
    socket.on("close", () => { for (const ac of inflight.values()) ac.abort(); });
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.on("data", lineReader((line) => {
      void handle(line, caller, inflight, (l) => { if (socket.writable) socket.write(l); }).then((resp) => {
        if (!resp || !socket.writable) return;
        socket.write(`${JSON.stringify(resp)}\n`);
        if (!resp.ok && resp.error.code === "unauthorized") socket.end();
      });
    }, () => { socket.write(`${JSON.stringify({ v: PROTOCOL_VERSION, id: null, ok: false, error: { code: "protocol_error", message: "Message too large." } })}\n`); }));
  });
  if (spec.kind === "unix") {
    mkdirSync(dirname(spec.path), { recursive: true, mode: 0o755 });
    await clearStaleSocket(spec.path);
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (spec.kind === "unix") {
      // Create the socket with no permissions for others, then open it up to the intended mode.
      const old = process.umask(0o177);
      server.listen(spec.path, () => { process.umask(old); resolve(); });
    } else {
      server.listen(spec.port, spec.host, () => { resolve(); });
    }
  });
  let address: string;
  if (spec.kind === "unix") {
    // The group first (daemon.agent_group / admin_group), then the mode that opens the socket to it.
    if (spec.gid !== undefined) chownSync(spec.path, -1, spec.gid);
    chmodSync(spec.path, spec.mode);
    address = spec.path;
  } else {
    const a = server.address() as { address: string; port: number };
    address = `tcp://${a.address.includes(":") ? `[${a.address}]` : a.address}:${a.port}`;
  }
  return {
    address,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => { resolve(); });
      if (spec.kind === "unix" && existsSync(spec.path)) { try { unlinkSync(spec.path); } catch { /* already gone */ } }
    }),
  };
}
