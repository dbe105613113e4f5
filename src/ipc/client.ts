import type { AdminMethod, AgentMethod, MethodName, ParamsIn, ResultOf } from "./methods.ts";
import type { Outcome } from "./protocol.ts";
import type { Progress } from "./wire.ts";
import type { TraceCarrier } from "../core/trace.ts";

export type { ResourceContents, ResourceEntry, ResourceTemplateEntry } from "./protocol.ts";

/** Per-call facts the front knows and the daemon records (never decides on). */
export interface CallOptions {
  /** The MCP client's self-reported name (initialize clientInfo.name): untrusted. */
  client_name?: string | undefined;
  /** The MCP connection this call came over (stdio), drawn by the front: binds skills confirm tokens. */
  session?: string | undefined;
  /** Cancels the call: the daemon's handler sees it (in process directly; over a socket by a cancel message), e.g. a skills_execute run or an exec_on_host command is killed. */
  signal?: AbortSignal | undefined;
  /** Receives the call's progress (execute's steps, issue 24), when the front's client asked for it with a progressToken. */
  progress?: ((p: Progress) => void) | undefined;
  /** The W3C trace context of the front's span for this call (issue 25): the daemon's spans become its children. Absent when tracing is off. */
  trace?: TraceCarrier | undefined;
}

/**
 * A typed client over the method table (ipc/methods.ts): `call("plan", {...})` is checked against the
 * method's params and answers with its result type. Never rejects for domain or transport errors: they
 * come back as `{ ok: false, error }` with a stable code (`unavailable`, `forbidden_method`, `invalid_params`,
 * `insufficient_role`, or the use case's own).
 */
export interface MethodClient<M extends MethodName> {
  call<K extends M>(method: K, params: ParamsIn<K>, opts?: CallOptions): Promise<Outcome<ResultOf<K>>>;
  close(): Promise<void>;
}

/**
 * The agent side of the daemon: what the MCP front may ask (DESIGN.md: "The MCP front talks to the daemon
 * only through one client interface"). Implemented in-process by the embedded daemon and over agent.sock
 * (or tcp:// + token) by the socket client.
 */
export type DaemonClient = MethodClient<AgentMethod>;

/** The admin side (admin.sock only): the human's approve/reject. Never reachable from the MCP front. */
export type AdminClient = MethodClient<AdminMethod>;

/** Unwraps an Outcome or throws an Error with its message and hint (for start-up calls such as describe). */
export function unwrap<T>(r: Outcome<T>): T {
  if (r.ok) return r.value;
  throw new Error(`${r.error.message}${r.error.hint ? ` ${r.error.hint}` : ""}`);
}
