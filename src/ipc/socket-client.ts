import { createConnection, type Socket } from "node:net";
import type { AdminClient, DaemonClient } from "./client.ts";
import { DescribeResultSchema, PROTOCOL_VERSION, QueryResultSchema, type Outcome } from "./protocol.ts";
import { parseListenUri } from "./server.ts";
import { lineReader, type IpcResponse } from "./wire.ts";

/** How long one call may wait for the daemon, in milliseconds (an execute may install packages). */
export const CALL_TIMEOUT_MS = 15 * 60 * 1000;

/**
 * A connection to a daemon socket (Unix path or tcp://host:port + token). Connects on first use,
 * multiplexes calls by id, and turns transport failures into `{ ok: false, error: { code: "unavailable" } }`
 * that say where it tried to connect, so callers never see a raw socket error.
 */
export class SocketConnection {
  private socket: Socket | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, (r: IpcResponse) => void>();

  constructor(private readonly address: string, private readonly token: string | undefined) {}

  private connect(): Promise<Socket> {
    if (this.socket && !this.socket.destroyed) return Promise.resolve(this.socket);
    const target = parseListenUri(this.address, this.token ?? "x".repeat(32));
    return new Promise((resolve, reject) => {
      const s = target.kind === "unix" ? createConnection(target.path) : createConnection(target.port, target.host);
      s.setNoDelay(true);
      s.once("connect", () => { this.socket = s; resolve(s); });
      s.once("error", (err) => { reject(err); });
      s.on("data", lineReader((line) => {
        let resp: IpcResponse;
        try { resp = JSON.parse(line) as IpcResponse; } catch { return; }
        if (typeof resp.id === "number") { this.pending.get(resp.id)?.(resp); this.pending.delete(resp.id); }
      }, () => undefined));
      s.on("close", () => {
        this.socket = null;
        for (const [, done] of this.pending) done({ v: PROTOCOL_VERSION, id: null, ok: false, error: { code: "unavailable", message: `The daemon at ${this.address} closed the connection.` } });
        this.pending.clear();
      });
    });
  }

  /** Calls one method; resolves with the daemon's result or an error body. */
  async call(method: string, params?: unknown): Promise<IpcResponse> {
    let socket: Socket;
    try {
      socket = await this.connect();
    } catch (err) {
      return { v: PROTOCOL_VERSION, id: null, ok: false, error: { code: "unavailable", message: `Cannot reach the hostgate daemon at ${this.address}: ${(err as Error).message}.`, hint: "Zero-setup mode: start `hostgate serve` or `hostgate mcp` with the same XDG_RUNTIME_DIR as this command. Production: start `hostgate daemon` (or its service) and check HOSTGATE_SOCKET / --socket." } };
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.pending.delete(id); resolve({ v: PROTOCOL_VERSION, id, ok: false, error: { code: "timeout", message: `The daemon did not answer ${method} within ${CALL_TIMEOUT_MS / 1000} s.` } }); }, CALL_TIMEOUT_MS);
      timer.unref();
      this.pending.set(id, (r) => { clearTimeout(timer); resolve(r); });
      socket.write(`${JSON.stringify({ v: PROTOCOL_VERSION, id, method, ...(params === undefined ? {} : { params }), ...(this.token ? { token: this.token } : {}) })}\n`);
    });
  }

  close(): Promise<void> {
    this.socket?.destroy();
    this.socket = null;
    return Promise.resolve();
  }
}

/** A call whose result is itself an Outcome (plan, execute, …): unwraps the transport layer. */
async function outcomeCall<T>(conn: SocketConnection, method: string, params?: unknown): Promise<Outcome<T>> {
  const r = await conn.call(method, params);
  if (!r.ok) return { ok: false, error: r.error };
  return r.result as Outcome<T>;
}

/** The agent-side client over a socket: the MCP front uses it when HOSTGATE_SOCKET / daemon.socket is set. */
export function socketDaemonClient(address: string, token?: string): DaemonClient {
  const conn = new SocketConnection(address, token);
  return {
    describe: async () => {
      const r = await conn.call("describe");
      if (!r.ok) throw new Error(`${r.error.message}${r.error.hint ? ` ${r.error.hint}` : ""}`);
      return DescribeResultSchema.parse(r.result);
    },
    query: async (action, args) => {
      const r = await conn.call("query", { action, args });
      return r.ok ? QueryResultSchema.parse(r.result) : { ok: false, error: r.error };
    },
    plan: (input) => outcomeCall(conn, "plan", input),
    execute: (input) => outcomeCall(conn, "execute", input),
    history: (input) => outcomeCall(conn, "history", input),
    doctor: () => outcomeCall(conn, "doctor"),
    auditVerify: (input) => outcomeCall(conn, "audit_verify", input),
    planCommand: (input) => outcomeCall(conn, "plan_command", input),
    listResources: () => outcomeCall(conn, "resources_list"),
    listResourceTemplates: () => outcomeCall(conn, "resource_templates_list"),
    readResource: (uri) => outcomeCall(conn, "resource_read", { uri }),
    close: () => conn.close(),
  };
}

/** The admin-side client over admin.sock (used by `hostgate approve` / `hostgate reject`). */
export function socketAdminClient(address: string): AdminClient {
  const conn = new SocketConnection(address, undefined);
  return {
    show: (id) => outcomeCall(conn, "show", { transaction_id: id }),
    approve: (id, expected) => outcomeCall(conn, "approve", { transaction_id: id, ...(expected ? { expected_preview_hash: expected } : {}) }),
    reject: (id) => outcomeCall(conn, "reject", { transaction_id: id }),
    close: () => conn.close(),
  };
}
