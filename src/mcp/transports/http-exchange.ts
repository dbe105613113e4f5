import type { IncomingMessage, ServerResponse } from "node:http";
import { parseJSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type Server, type Transport } from "@modelcontextprotocol/server";
import { rpcError } from "./envelope.ts";
import { frame } from "./raw-id.ts";

/** The SDK's generic server error code, used by its Streamable HTTP transport for transport-level refusals. */
const SERVER_ERROR = -32000;

/**
 * Writes one complete JSON answer (one write: headers and body, with Content-Length). `rawId`: the exact id
 * token the client sent, written in place of the body's `id` (raw-id.ts: an integer id beyond 2^53).
 */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, rawId?: string): void {
  if (res.headersSent || res.destroyed) return;
  const text = rawId !== undefined && typeof body === "object" && body !== null ? frame(body, rawId) : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/**
 * A transport that carries exactly one JSON-RPC exchange of a stateless Streamable HTTP POST: the message is
 * handed to the server, and the server's answer to it (its response with the same id) settles `answer`.
 * Notifications the server sends before its result are dropped, as in the SDK's JSON response mode;
 * hostgate's tools send none.
 */
export class ExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Protocol versions the connected server supports (set by the SDK on connect). */
  supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
  private closed = false;
  private resolveAnswer: (message: JSONRPCMessage | null) => void = () => undefined;
  /** The server's response to the exchange's request, or null when the exchange was closed first. */
  readonly answer = new Promise<JSONRPCMessage | null>((resolve) => { this.resolveAnswer = resolve; });

  constructor(private readonly requestId: string | number | undefined) {}

  start(): Promise<void> { return Promise.resolve(); }

  setSupportedProtocolVersions(versions: string[]): void { this.supported = versions; }

  send(message: JSONRPCMessage): Promise<void> {
    // Messages here come from our own server: a response is recognised by shape, not re-validated.
    if (!this.closed && !("method" in message) && "id" in message && message.id === this.requestId) this.resolveAnswer(message);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.resolveAnswer(null);
    this.onclose?.();
    return Promise.resolve();
  }
}

/**
 * Serves one 2025-era POST statelessly on Node's own request and response objects (no fetch
 * Request/Response, no streams): a fresh server per request from `factory`, so clients never share state
 * (corpus M028, M029). `message` is the body the caller already parsed and envelope-checked. Answers as the
 * SDK's stateless Streamable HTTP transport does in JSON response mode: 406 when Accept lacks
 * application/json or text/event-stream, 400 (-32700) for a body that is not a JSON-RPC message, 400 for an
 * unsupported MCP-Protocol-Version header (not on initialize), 202 with no body for a notification or
 * response, else 200 with the JSON-RPC answer as one JSON body. A client that disconnects before the answer
 * cancels the call (its handler's signal aborts). `rawId`: the exact token of the request's id when `body`
 * carries a stand-in for it (http.ts, raw-id.ts); the answer is written with it.
 */
export async function serveLegacyPost(req: IncomingMessage, res: ServerResponse, body: unknown, factory: () => Server, rawId?: string): Promise<void> {
  const accept = req.headers.accept ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
    writeJson(res, 406, rpcError(null, SERVER_ERROR, "Not Acceptable: Client must accept both application/json and text/event-stream"));
    return;
  }
  let message: JSONRPCMessage;
  try {
    message = parseJSONRPCMessage(body);
  } catch {
    writeJson(res, 400, rpcError(null, -32700, "Parse error: Invalid JSON-RPC message"));
    return;
  }
  const request = "method" in message && "id" in message ? message : null;
  const transport = new ExchangeTransport(request?.id);
  const server = factory();
  await server.connect(transport);
  const version = req.headers["mcp-protocol-version"];
  if (request?.method !== "initialize" && typeof version === "string" && !transport.supported.includes(version)) {
    void transport.close();
    writeJson(res, 400, rpcError(null, SERVER_ERROR, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${transport.supported.join(", ")})`));
    return;
  }
  if (request === null) {
    transport.onmessage?.(message);
    res.writeHead(202, { "content-length": 0 });
    res.end();
    return;
  }
  // Client gone before the answer: closing the server aborts the handler's signal (cancels the call).
  const onGone = (): void => { void transport.close(); };
  res.once("close", onGone);
  transport.onmessage?.(message);
  const answer = await transport.answer;
  res.off("close", onGone);
  // Once answered nothing of the exchange is pending: the server and transport are simply dropped (closing
  // them would only build a "connection closed" error for handlers that no longer exist).
  if (answer !== null) writeJson(res, 200, answer, {}, rawId);
}
