import { readFileSync, statSync } from "node:fs";
import { createConnection } from "node:net";
import type { Duplex } from "node:stream";
import type { AdminClient, DaemonClient, MethodClient } from "./client.ts";
import type { AdminMethod, AgentMethod, MethodName } from "./methods.ts";
import { ErrorBodySchema, PROTOCOL_VERSION, type ErrorBody, type Outcome } from "./protocol.ts";
import { parseListenUri } from "./server.ts";
import { parseVsockUri } from "./vsock-uri.ts";
import { lineReader, MAX_MESSAGE_BYTES, type IpcProgressLine, type IpcResponse, type Progress } from "./wire.ts";
import { describeIssues } from "../core/errors.ts";
import { groupNameIn } from "../core/host/passwd.ts";
import type { TraceCarrier } from "../core/trace.ts";

/** How long one call may wait for the daemon, in milliseconds (an execute may install packages). */
export const CALL_TIMEOUT_MS = 15 * 60 * 1000;

/**
 * A connection to a daemon socket (Unix path or tcp://host:port + token). Connects on first use,
 * multiplexes calls by id, and turns transport failures into `{ ok: false, error: { code: "unavailable" } }`
 * that say where it tried to connect, so callers never see a raw socket error.
 */
export class SocketConnection {
  private socket: Duplex | null = null;
  private nextId = 1;
  /** How many connections were made so far: a new one may reach another daemon (restarted, upgraded). */
  connections = 0;
  private readonly pending = new Map<number, (r: IpcResponse) => void>();
  /** Progress listeners of in-flight calls that asked for progress, by id. */
  private readonly listeners = new Map<number, (p: Progress) => void>();

  /**
   * `side`: which of the daemon's sockets this is (agent.sock or admin.sock), for the advice on a refused connection.
   * `command`: the command line the user ran (`hostgate approve 3f2a…`), repeated in the advice when the socket
   * refuses this user (`sudo hostgate approve 3f2a…`); without it the advice says "this command".
   */
  constructor(private readonly address: string, private readonly token: string | undefined, private readonly side: "agent" | "admin" = "agent", private readonly command?: string) {}

  private connect(): Promise<Duplex> {
    if (this.socket && !this.socket.destroyed) return Promise.resolve(this.socket);
    if (this.address.startsWith("vsock://")) {
      // Node.js has no AF_VSOCK: socat holds the connection (ipc/vsock.ts), loaded only for vsock:// addresses.
      const target = parseVsockUri(this.address);
      if (!target) return Promise.reject(new Error("expected vsock://CID:PORT, e.g. vsock://3:7420"));
      return import("./vsock.ts").then((m) => m.connectThroughSocat(m.vsockAddress(target.cid, target.port))).then((s) => { this.attach(s); this.socket = s; this.connections++; return s; });
    }
    const target = parseListenUri(this.address, this.token ?? "x".repeat(32));
    return new Promise((resolve, reject) => {
      const s = target.kind === "unix" ? createConnection(target.path) : createConnection(target.port, target.host);
      s.setNoDelay(true);
      s.once("connect", () => { this.socket = s; this.connections++; resolve(s); });
      s.once("error", (err) => { reject(err); });
      this.attach(s);
    });
  }

  private attach(s: Duplex): void {
    s.on("error", () => undefined);
    s.on("data", lineReader((line) => {
      let resp: IpcResponse | IpcProgressLine;
      try { resp = JSON.parse(line) as IpcResponse | IpcProgressLine; } catch { return; }
      if (typeof resp.id !== "number") return;
      // A progress line (issue 24) goes to its call's listener; only the answer settles the call.
      if (!("ok" in resp)) { this.listeners.get(resp.id)?.(resp.progress); return; }
      this.pending.get(resp.id)?.(resp);
      this.pending.delete(resp.id);
      this.listeners.delete(resp.id);
    }, (head) => { this.overflow(s, head); }));
    s.on("close", () => {
      this.socket = null;
      for (const [, done] of this.pending) done({ v: PROTOCOL_VERSION, id: null, ok: false, error: { code: "unavailable", message: `The daemon at ${this.address} closed the connection.` } });
      this.pending.clear();
    });
  }

  /**
   * An answer line crossed MAX_MESSAGE_BYTES: the call it answers fails now (never waits out CALL_TIMEOUT_MS).
   * The daemon writes `{"v":…,"id":…` first (ipc/server.ts), so the id is read from the line's head; a line
   * without one fails every call of the connection, which is then closed.
   */
  private overflow(s: Duplex, head: string): void {
    const error = { code: "answer_too_large", message: `The daemon at ${this.address} sent an answer larger than ${MAX_MESSAGE_BYTES} bytes (the IPC limit); it was dropped.`, hint: "Narrow the request (a lower limit, a filter, or a cursor to page with)." };
    const id = /^\s*\{"v":\d+,"id":(\d+),/.exec(head)?.[1];
    const done = id === undefined ? undefined : this.pending.get(Number(id));
    if (done) {
      this.pending.delete(Number(id));
      done({ v: PROTOCOL_VERSION, id: Number(id), ok: false, error });
      return;
    }
    for (const [, fail] of this.pending) fail({ v: PROTOCOL_VERSION, id: null, ok: false, error });
    this.pending.clear();
    s.destroy();
  }

  /** Calls one method; resolves with the daemon's result or an error body. */
  async call(method: string, params?: unknown, clientName?: string, signal?: AbortSignal, progress?: (p: Progress) => void, trace?: TraceCarrier): Promise<IpcResponse> {
    let socket: Duplex;
    try {
      socket = await this.connect();
    } catch (err) {
      // EACCES: a socket is there and refuses this user (details.cause), which callers must not word as "no daemon".
      const refused = (err as NodeJS.ErrnoException).code === "EACCES";
      return { v: PROTOCOL_VERSION, id: null, ok: false, error: { code: "unavailable", message: `Cannot reach the hostgate daemon at ${this.address}: ${(err as Error).message}.`, hint: unreachableHint(err, this.address, process.env, this.side, this.command), ...(refused ? { details: { cause: "permission_denied" } } : {}) } };
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.pending.delete(id); resolve({ v: PROTOCOL_VERSION, id, ok: false, error: { code: "timeout", message: `The daemon did not answer ${method} within ${CALL_TIMEOUT_MS / 1000} s.` } }); }, CALL_TIMEOUT_MS);
      timer.unref();
      const onAbort = (): void => { if (socket.writable) socket.write(`${JSON.stringify({ v: PROTOCOL_VERSION, cancel: id })}\n`); };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, (r) => { clearTimeout(timer); signal?.removeEventListener("abort", onAbort); this.listeners.delete(id); resolve(r); });
      if (progress) this.listeners.set(id, progress);
      socket.write(`${JSON.stringify({ v: PROTOCOL_VERSION, id, method, ...(params === undefined ? {} : { params }), ...(this.token ? { token: this.token } : {}), ...(clientName ? { client: clientName.slice(0, 256) } : {}), ...(progress ? { progress: true } : {}), ...(trace ? { trace } : {}) })}\n`);
    });
  }

  close(): Promise<void> {
    this.socket?.destroy();
    this.socket = null;
    return Promise.resolve();
  }
}

/**
 * An error body as received, checked against the protocol's schema (code, message, hint, details as a JSON
 * object); one that does not match becomes a `protocol_error` naming what was wrong, never passed on as is.
 */
function checkedError(error: unknown): ErrorBody {
  const parsed = ErrorBodySchema.safeParse(error);
  if (parsed.success) return parsed.data;
  return { code: "protocol_error", message: `The daemon answered a malformed error: ${describeIssues(parsed.error, "error")}.`, hint: "Run the same hostgate version for the front and the daemon." };
}

/**
 * A typed client over a socket, for the methods of one side of the table: the transport's failure or a
 * refusal becomes `{ ok: false }`; otherwise the daemon's Outcome comes through as it was sent.
 */
function socketClient<M extends MethodName>(conn: SocketConnection): MethodClient<M> {
  return {
    call: async (method, params, opts) => {
      const r = await conn.call(method, params, opts?.client_name, opts?.signal, opts?.progress, opts?.trace);
      const out = (r.ok ? r.result : { ok: false, error: r.error }) as Outcome<never>;
      return out.ok ? out : { ok: false, error: checkedError(out.error) };
    },
    close: () => conn.close(),
  };
}

/**
 * The agent-side client over a socket: the MCP front uses it for a configured or system daemon.
 * `connections()` counts the connections made so far (a new one may reach another daemon).
 */
export function socketDaemonClient(address: string, token?: string): DaemonClient & { connections: () => number } {
  const conn = new SocketConnection(address, token);
  return { ...socketClient<AgentMethod>(conn), connections: () => conn.connections };
}

/**
 * The admin-side client over admin.sock (used by `hostgate approve` / `hostgate reject`…). `command`: the command
 * line the user ran (cli/common.ts `commandLine()`), which a refusal's advice repeats with sudo.
 */
export function socketAdminClient(address: string, command?: string): AdminClient {
  return socketClient<AdminMethod>(new SocketConnection(address, undefined, "admin", command));
}

/**
 * What to do when the daemon's socket at `address` cannot be connected to. EACCES on a socket that admits its
 * owner only (the admin socket: mode 0600, root's for the installed service) means the command must run as that
 * owner, whatever groups the caller has (issue 25: a member of the hostgate group was told to join it). EACCES on
 * a group socket: the agent socket (mode 0660) admits its group only (daemon.agent_group; `hostgate` for the
 * installed service), so the caller is not in it — a container's user gets it with --group-add (Containerfile);
 * the admin socket (`side` "admin", mode 0660 with daemon.admin_group) admits root and that group, named from the
 * socket's gid (review s24: the agent socket's advice was given for it). Otherwise no daemon listens there: inside
 * the container image (HOSTGATE_IN_IMAGE, set by the Containerfile) the daemon is the host's, so no zero-setup
 * advice (issue 25). `command`: the command line the user ran; the root-only advice repeats it after sudo (issue 25
 * re-trial: `hostgate approve` was told "sudo hostgate pending"). `groupFile`: the group database the admin
 * socket's group is named from (/etc/group).
 */
export function unreachableHint(err: unknown, address = "", env: NodeJS.ProcessEnv = process.env, side: "agent" | "admin" = "agent", command?: string, groupFile = "/etc/group"): string {
  if ((err as NodeJS.ErrnoException).code === "EACCES") {
    const owner = ownerOnly(address);
    if (owner !== null) {
      return `Permission denied: ${address} admits only its owner (uid ${owner}${owner === 0 ? ", root" : ""}); membership of a group does not open it. It is the daemon's admin socket: approving, rejecting and listing pending plans are for ${owner === 0 ? "root" : `uid ${owner}`}: ${owner === 0 ? `run it with sudo${command ? `: sudo ${command}` : ""}` : `run it as uid ${owner}${command ? `: ${command}` : ""}`}.`;
    }
    if (side === "admin") {
      const group = groupOf(address, groupFile);
      return `Permission denied: ${address} is the daemon's admin socket and admits only its owner and ${group === null ? "its group" : `the members of group ${group}`} (daemon.admin_group). Add this user to that group (sudo usermod -aG ${group ?? "GROUP"} USER, then log in again), or run it with sudo${command ? `: sudo ${command}` : ""}.`;
    }
    const sock = address.startsWith("/") ? address : "<the agent socket>";
    return `Permission denied: the agent socket admits only its group (the hostgate group of the installed service, or daemon.agent_group). Add this user to it (sudo usermod -aG hostgate USER, then log in again); in a container, run with --group-add and the socket's group id, read on the host with stat -c %g ${sock} (getent group hostgate gives it only when the daemon is the installed service).`;
  }
  if (env.HOSTGATE_IN_IMAGE) {
    return "This is the hostgate container image: no daemon runs in it. Start the daemon on the host (sudo systemctl start hostgate, or hostgate daemon) and mount its socket (-v /run/hostgate:/run/hostgate), or pass -e HOSTGATE_SOCKET=tcp://HOST:PORT -e HOSTGATE_TOKEN.";
  }
  return "Zero-setup mode: start `hostgate serve` or `hostgate mcp` with the same XDG_RUNTIME_DIR as this command. Production: start `hostgate daemon` (or its service) and check HOSTGATE_SOCKET / --socket.";
}

/**
 * The name of the socket file's group from `groupFile` (/etc/group, parsed by core/host/passwd.ts as the daemon's
 * adapters/os-groups.ts parses it), else `gid N`; null when the socket file cannot be stat'd.
 */
function groupOf(address: string, groupFile: string): string | null {
  let gid: number;
  try {
    gid = statSync(address).gid;
  } catch {
    return null;
  }
  let text = "";
  try {
    text = readFileSync(groupFile, "utf8");
  } catch {
    // no readable group file: the number says it
  }
  return groupNameIn(text, gid) ?? `gid ${gid}`;
}

/** The owner's uid when the socket file at `address` gives its group and others no access; else null (or not a file). */
export function ownerOnly(address: string): number | null {
  if (!address.startsWith("/")) return null;
  try {
    const st = statSync(address);
    return (st.mode & 0o066) === 0 ? st.uid : null;
  } catch {
    return null;
  }
}
