import { MAX_CLIENT_NAME, roleAtLeast, type Caller } from "../core/caller.ts";
import { toolNameOf } from "../core/catalogue/action.ts";
import { describeIssues, errorBody } from "../core/errors.ts";
import type { MethodClient } from "./client.ts";
import { isMethodName, METHODS, type MethodName, type ParamsOf, type ResultOf } from "./methods.ts";
import type { ErrorBody, Outcome } from "./protocol.ts";
import type { Progress } from "./wire.ts";
import { NO_TRACER, traceCarrierOf, type SpanAttributes, type TraceCarrier, type Tracer } from "../core/trace.ts";

/** The daemon's implementation of every method of the table: one handler each, given the caller. Throw HostgateError for domain errors. */
export type Handlers = { [M in MethodName]: (params: ParamsOf<M>, caller: Caller, signal?: AbortSignal, progress?: (p: Progress) => void) => Promise<ResultOf<M>> | ResultOf<M> };

/**
 * The answer of {@link Dispatcher.dispatch}: refused before any handler ran (`ok: false`: unknown method,
 * wrong socket, role too low, bad params; the socket sends these as a failed response), or answered by the
 * handler (`ok: true` with the handler's Outcome, domain errors included).
 */
export type Dispatched = { ok: false; error: ErrorBody } | { ok: true; result: Outcome<unknown> };

/** Routes one request to its handler after the table's checks; shared by ipc/server.ts and the in-process client. */
export interface Dispatcher {
  /**
   * `signal`: aborted when the request is cancelled or its connection closes (long runs stop then). `progress`: where
   * a long handler reports how far it is. `trace`: the front's trace context (issue 25): the request's span is its child.
   */
  dispatch(method: string, params: unknown, caller: Caller, signal?: AbortSignal, progress?: (p: Progress) => void, trace?: TraceCarrier): Promise<Dispatched>;
}

/**
 * The tool a model called, for messages about its arguments (issue 22): a direct tool for `query` (its action,
 * `GetDiskUsage` → `get_disk_usage`), else the method, whose name is its tool's.
 */
function calledTool(method: MethodName, params: unknown): string {
  const action = method === "query" && typeof params === "object" && params !== null ? (params as { action?: unknown }).action : undefined;
  return typeof action === "string" && /^[A-Za-z][A-Za-z0-9]{0,127}$/.test(action) ? toolNameOf(action) : method;
}

const issues = (e: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string => describeIssues(e, "params");

/**
 * Builds the dispatcher over {@link METHODS}: the method must exist, be served on the caller's socket
 * (`forbidden_method`: approvals only on admin.sock; in-process callers may reach both sides), the caller's
 * role must reach the method's `min_role` (`insufficient_role`), and the params must match the method's
 * schema (`invalid_params`). Then `gate` runs (the daemon's exposure rule: app/exposure.ts), then the handler;
 * whatever either throws becomes `{ ok: false }` with its code. With `tracer` on (issue 25), each request is one
 * SERVER span `daemon <method>` (child of the request's `trace`, else a root), whose refusal or error code is its
 * `error.type`; the use case's and adapters' spans nest under it.
 */
export function createDispatcher(handlers: Handlers, gate?: (method: MethodName, params: unknown, caller: Caller) => Promise<void>, tracer: Tracer = NO_TRACER): Dispatcher {
  const check = checks(handlers, gate);
  if (!tracer.enabled) return { dispatch: check };
  return {
    dispatch: (name, rawParams, caller, signal, progress, trace) => tracer.span(`daemon ${isMethodName(name) ? name : "unknown"}`, { kind: "server", parent: traceCarrierOf(trace), attributes: requestAttributes(name, rawParams, caller) }, async (span) => {
      const r = await check(name, rawParams, caller, signal, progress);
      const error = !r.ok ? r.error : !r.result.ok ? r.result.error : null;
      if (error) span.fail(error.code, error.code);
      return r;
    }),
  };
}

/**
 * The attributes of one daemon request's span (docs/tracing.md): the method, the tool it serves (a direct tool's
 * action name, checked by calledTool), the caller's role and socket. Never a param's value.
 */
function requestAttributes(name: string, params: unknown, caller: Caller): SpanAttributes {
  const method = isMethodName(name) ? name : "unknown";
  return {
    "rpc.system.name": "hostgate",
    "rpc.method": method,
    ...(isMethodName(name) ? { "gen_ai.tool.name": calledTool(name, params) } : {}),
    "hostgate.caller.role": caller.role,
    "hostgate.caller.socket": caller.socket,
  };
}

/** The table's checks, the exposure gate and the handler (see createDispatcher). */
function checks(handlers: Handlers, gate?: (method: MethodName, params: unknown, caller: Caller) => Promise<void>): Dispatcher["dispatch"] {
  return async (name, rawParams, caller, signal, progress) => {
    if (!isMethodName(name)) return { ok: false, error: { code: "protocol_error", message: `Unknown method ${name}.` } };
    const def = METHODS[name];
    if (def.socket === "admin" && (caller.socket === "agent" || caller.socket === "tcp")) {
      return { ok: false, error: { code: "forbidden_method", message: `${name} is not available on the ${caller.socket} socket.`, hint: "Approvals happen only on the admin socket, by a human running `hostgate approve <plan_id>`." } };
    }
    if (def.socket === "agent" && caller.socket === "admin") {
      return { ok: false, error: { code: "forbidden_method", message: `${name} is not available on the admin socket.`, hint: "Use the agent socket." } };
    }
    if (!roleAtLeast(caller.role, def.min_role)) {
      return { ok: false, error: { code: "insufficient_role", message: `${name} needs the ${def.min_role} role; this caller is ${caller.role}.`, hint: "Ask the daemon's administrator for a role that allows it." } };
    }
    const parsed = def.params.safeParse(rawParams ?? {});
    if (!parsed.success) return { ok: false, error: { code: "invalid_params", message: `Invalid params for ${calledTool(name, rawParams)}: ${issues(parsed.error)}`, ...(def.example ? { hint: `A valid call: ${def.example}.` } : {}) } };
    try {
      if (gate) await gate(name, parsed.data, caller);
      const handler = handlers[name] as (p: unknown, c: Caller, s?: AbortSignal, g?: (p: Progress) => void) => Promise<unknown>;
      return { ok: true, result: { ok: true, value: await handler(parsed.data, caller, signal, progress) } };
    } catch (err) {
      return { ok: true, result: { ok: false, error: errorBody(err) } };
    }
  };
}

/** A typed client that calls a dispatcher in this process as `caller` (the embedded daemon's client). */
export function inProcessClient<M extends MethodName>(dispatcher: Dispatcher, caller: Caller): MethodClient<M> {
  return {
    call: async (method, params, opts) => {
      const who = opts?.client_name ? { ...caller, client_name: opts.client_name.slice(0, MAX_CLIENT_NAME) } : caller;
      const r = await dispatcher.dispatch(method, params, who, opts?.signal, opts?.progress, opts?.trace);
      return (r.ok ? r.result : r) as Outcome<never>;
    },
    close: () => Promise.resolve(),
  };
}
