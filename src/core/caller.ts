import type { TestProof } from "./approval-proof.ts";

/**
 * Who is calling the daemon (DESIGN.md, Words: caller). Built once per connection by ipc/server.ts (or by
 * the in-process client) and passed into every use case. `role` and `socket` come from where the request
 * arrived; `peer` comes from the kernel (SO_PEERCRED on a Unix socket) and is null where the kernel cannot
 * say (tcp://, in-process); `client_name` is what the MCP client said in `initialize` and is UNTRUSTED:
 * record it, never decide on it.
 */

/** Caller roles, least to most privileged. Observers query; operators plan and execute with receipts; admins approve. */
export type Role = "observer" | "operator" | "admin";
export const ROLES: readonly Role[] = ["observer", "operator", "admin"];

/** Where a request came from: agent.sock, admin.sock, a tcp:// listener (token), or the same process. */
export type CallerSocket = "agent" | "admin" | "tcp" | "in_process";

/** Peer credentials as the kernel reports them for a Unix-socket connection (SO_PEERCRED). */
export interface PeerCredentials {
  uid: number;
  gid: number;
  pid: number;
}

/** One caller (see the module comment). `label` is a short name for logs (`mcp`, `admin`, `test`). */
export interface Caller {
  role: Role;
  socket: CallerSocket;
  peer: PeerCredentials | null;
  /** From MCP `initialize` clientInfo.name; untrusted, at most 64 characters once recorded. */
  client_name: string | null;
  label: string;
  /**
   * Tests only: the approver proof an in-process test caller approves with (core/approval-proof.ts, kind `test`,
   * built by test/support/approver.ts). No production code sets it: the socket server builds callers from the
   * kernel, and the proof's brand cannot be named outside core/approval-proof.ts and tests.
   */
  test_proof?: TestProof;
}

/** Whether `have` is at least `need` (observer < operator < admin). */
export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

/** Longest client name kept in an actor string (characters). */
export const MAX_CLIENT_NAME = 64;

/**
 * The audit `actor` string for a caller: compact JSON with sorted keys, e.g.
 * `{"client":"claude-code","gid":1000,"label":"mcp","pid":4242,"role":"operator","socket":"agent","uid":1000}`.
 * Keys absent when unknown. Parse it back with {@link parseActor}. At most ~256 characters (the client name is cut).
 */
export function actorOf(caller: Caller): string {
  const o: Record<string, string | number> = {};
  // Untrusted text: printable ASCII only (anything else becomes "?"), cut, so the actor stays under the
  // audit store's 256-character limit whatever a client calls itself (a longer actor would refuse the action).
  if (caller.client_name) o.client = caller.client_name.slice(0, MAX_CLIENT_NAME).replace(/[^\x20-\x7e]|["\\]/g, "?");
  if (caller.peer) { o.gid = caller.peer.gid; }
  o.label = caller.label.slice(0, 32).replace(/[^\x20-\x7e]|["\\]/g, "?");
  if (caller.peer) o.pid = caller.peer.pid;
  o.role = caller.role;
  o.socket = caller.socket;
  if (caller.peer) o.uid = caller.peer.uid;
  return JSON.stringify(o);
}

/** The fields of an actor string written by {@link actorOf}; null for older free-form actors ("mcp", "daemon"). */
export function parseActor(actor: string): { role?: Role; socket?: CallerSocket; uid?: number; gid?: number; pid?: number; client?: string; label?: string } | null {
  if (!actor.startsWith("{")) return null;
  try {
    const v: unknown = JSON.parse(actor);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * An audit actor as a reader sees it (history[].actor): the fields {@link actorOf} wrote, each kept only with
 * its expected type (role and socket only with a known value), or `{ raw }` with the text as recorded when it is
 * not such an actor (older free-form actors such as "daemon" or "uid:0", or JSON that is not an object). Never
 * throws. `client` is what the MCP client called itself (untrusted).
 */
export interface ActorView {
  client?: string;
  uid?: number;
  gid?: number;
  pid?: number;
  role?: Role;
  socket?: CallerSocket;
  label?: string;
  raw?: string;
}

const SOCKETS: readonly CallerSocket[] = ["agent", "admin", "tcp", "in_process"];

/** The {@link ActorView} of an audit actor string. */
export function actorView(actor: string): ActorView {
  const a = parseActor(actor) as Record<string, unknown> | null;
  if (!a) return { raw: actor };
  const v: ActorView = {};
  if (typeof a.client === "string") v.client = a.client;
  for (const k of ["uid", "gid", "pid"] as const) if (Number.isSafeInteger(a[k])) v[k] = a[k] as number;
  if (ROLES.includes(a.role as Role)) v.role = a.role as Role;
  if (SOCKETS.includes(a.socket as CallerSocket)) v.socket = a.socket as CallerSocket;
  if (typeof a.label === "string") v.label = a.label;
  return Object.keys(v).length > 0 ? v : { raw: actor };
}

/** A caller inside the daemon's own process (embedded front, tests, the CLI in embedded mode). */
export function inProcessCaller(role: Role, label: string, clientName: string | null = null): Caller {
  return { role, socket: "in_process", peer: null, client_name: clientName, label };
}
