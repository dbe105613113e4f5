import { ProtocolError } from "@modelcontextprotocol/server";
import type { DaemonClient } from "../ipc/client.ts";
import { META_ERROR_CODE } from "./result.ts";
import { errorTypeOf, traceCarrierOf, type SpanAttributes, type Tracer } from "../core/trace.ts";

/** What the front knows of one MCP request when its span starts (the SDK's handler context, trimmed). */
export interface TracedRequest {
  /** `mcp.method.name`, e.g. `tools/call`. */
  method: string;
  /** The JSON-RPC id (`jsonrpc.request.id`, as a string). */
  id: string | number;
  /** The request's `params._meta`: its `traceparent` / `tracestate` become the span's parent (core/trace.ts checks them). */
  meta: unknown;
  /** `gen_ai.tool.name`, only for a tool this server has (a name the model made up is not recorded: it could hold anything). */
  tool?: string | undefined;
  /** `mcp.session.id`: the stdio connection's id, or the transport's session id. */
  session?: string | undefined;
  /** `mcp.protocol.version`, when the request carried it (2026-07-28 envelope). */
  protocol?: string | undefined;
  /** `network.transport`: `pipe` for stdio, `tcp` for HTTP (the MCP semantic conventions' values). */
  transport?: "pipe" | "tcp" | undefined;
}

/** The result shape a traced handler may return: a tools/call answer with `isError` is marked `tool_error`. */
type Answer = { isError?: boolean; _meta?: Record<string, unknown> } | object;

/**
 * Runs one MCP request handler in its SERVER span, per OpenTelemetry's MCP semantic conventions (status: development;
 * open-telemetry/semantic-conventions-genai docs/gen-ai/mcp.md, "Server"): name `{mcp.method.name} {gen_ai.tool.name}`
 * (or the method alone), attributes `mcp.method.name`, `jsonrpc.request.id`, `gen_ai.tool.name` and
 * `gen_ai.operation.name=execute_tool` for tools/call, `mcp.session.id`, `mcp.protocol.version`, `network.transport`;
 * the parent is the W3C context in `params._meta` when the client sent one. A JSON-RPC error is `error.type` = its
 * code (`-32602`); a result with `isError: true` is `error.type` = `tool_error` plus hostgate's code in
 * `hostgate.error.code`. Status descriptions are codes, never messages (a message can quote the model's input).
 * Arguments and results are never recorded (the conventions' opt-in `gen_ai.tool.call.*` stays off).
 */
export function traceRequest<T extends Answer>(tracer: Tracer, req: TracedRequest, handler: () => Promise<T>): Promise<T> {
  if (!tracer.enabled) return handler();
  const attributes: SpanAttributes = {
    "mcp.method.name": req.method,
    "jsonrpc.request.id": String(req.id),
    ...(req.tool ? { "gen_ai.tool.name": req.tool } : {}),
    ...(req.method === "tools/call" ? { "gen_ai.operation.name": "execute_tool" } : {}),
    ...(req.session ? { "mcp.session.id": req.session } : {}),
    ...(req.protocol ? { "mcp.protocol.version": req.protocol } : {}),
    ...(req.transport ? { "network.transport": req.transport } : {}),
  };
  // A throw is caught inside the span (so its error.type is the JSON-RPC code) and rethrown outside it.
  return tracer.span(req.tool ? `${req.method} ${req.tool}` : req.method, { kind: "server", parent: traceCarrierOf(req.meta), attributes }, async (span): Promise<{ ok: true; answer: T } | { ok: false; err: unknown }> => {
    try {
      const answer = await handler();
      const a = answer as { isError?: boolean; _meta?: Record<string, unknown> };
      if (a.isError === true) {
        const code = a._meta?.[META_ERROR_CODE];
        if (typeof code === "string" && /^[a-z][a-z0-9_]{0,63}$/.test(code)) span.setAttributes({ "hostgate.error.code": code });
        span.fail("tool_error", "tool_error");
      }
      return { ok: true, answer };
    } catch (err) {
      // A JSON-RPC error: error.type and rpc.response.status_code are its code (conventions, note [1]).
      if (err instanceof ProtocolError) {
        span.setAttributes({ "rpc.response.status_code": String(err.code) });
        span.fail(String(err.code), String(err.code));
      } else span.fail(errorTypeOf(err), errorTypeOf(err));
      return { ok: false, err };
    }
  }).then((r) => {
    if (r.ok) return r.answer;
    throw r.err;
  });
}

/**
 * The daemon client seen through `tracer`: every call carries the active span's W3C context (ipc/client.ts
 * `trace`), so the daemon's spans are children of the MCP request's. With tracing off the client itself.
 */
export function tracedClient(client: DaemonClient, tracer: Tracer): DaemonClient {
  if (!tracer.enabled) return client;
  return {
    call: (method, params, opts) => {
      const trace = tracer.carrier();
      return client.call(method, params, trace ? { ...opts, trace } : opts);
    },
    close: () => client.close(),
  };
}
