/**
 * JSON-RPC 2.0 envelope checks done before any message reaches the SDK, shared by stdio and HTTP. They
 * answer the malformed inputs of the corpus (M001, M002, M004–M008) with the right error and id, so one bad
 * message never kills the server nor is answered as if it were valid.
 */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

/** A JSON-RPC error response. `id` is null whenever the request's id cannot be known or is invalid. */
export interface EnvelopeError {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}

export function rpcError(id: string | number | null, code: number, message: string): EnvelopeError {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

const isValidId = (id: unknown): id is string | number => typeof id === "string" || (typeof id === "number" && Number.isFinite(id));

/**
 * Checks `params._meta` (MCP: an object of reserved request metadata). `progressToken`, when present, must be
 * a string or an integer (MCP ProgressToken); any other value left a stdio request unanswered in the SDK
 * (corpus T2-04). Returns the problem as a sentence, or null.
 */
function checkMeta(meta: unknown): string | null {
  if (meta === undefined) return null;
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return 'Invalid params: "_meta" must be a JSON object.';
  if (!("progressToken" in meta)) return null;
  const token = (meta).progressToken;
  if (typeof token === "string" || (typeof token === "number" && Number.isSafeInteger(token))) return null;
  return `Invalid params: "_meta.progressToken" must be a string or an integer, not ${JSON.stringify(token) ?? typeof token}.`;
}

/**
 * Checks one decoded JSON value. Returns null when it is a well-formed JSON-RPC request, notification or
 * response; otherwise the error response to send. Batches (arrays) are refused whole, before any element
 * runs: MCP removed batching after 2025-03-26, and batches skipped per-call checks elsewhere (M008).
 */
export function checkEnvelope(value: unknown): EnvelopeError | null {
  if (Array.isArray(value)) return rpcError(null, INVALID_REQUEST, "Batch requests are not supported: send one JSON-RPC message at a time.");
  if (value === null || typeof value !== "object") return rpcError(null, INVALID_REQUEST, "A JSON-RPC message must be a JSON object.");
  const msg = value as Record<string, unknown>;
  const id = isValidId(msg.id) ? msg.id : null;
  if (msg.jsonrpc !== "2.0") return rpcError(id, INVALID_REQUEST, 'The "jsonrpc" member must be the string "2.0".');
  const isErrorResponse = "error" in msg && !("method" in msg);
  if ("id" in msg && !isValidId(msg.id) && !(isErrorResponse && msg.id === null)) return rpcError(null, INVALID_REQUEST, 'The "id" member must be a string or a number.');
  if ("method" in msg) {
    if (typeof msg.method !== "string" || msg.method === "") return rpcError(id, INVALID_REQUEST, 'The "method" member must be a non-empty string.');
    if ("params" in msg && (msg.params === null || typeof msg.params !== "object" || Array.isArray(msg.params))) {
      return rpcError(id, INVALID_PARAMS, 'The "params" member must be a JSON object.');
    }
    const meta = checkMeta((msg.params as Record<string, unknown> | undefined)?._meta);
    return meta === null ? null : rpcError(id, INVALID_PARAMS, meta);
  }
  if ("result" in msg && "error" in msg) return rpcError(id, INVALID_REQUEST, 'A response carries "result" or "error", not both.');
  if ("result" in msg || "error" in msg) return "id" in msg ? null : rpcError(null, INVALID_REQUEST, "A response needs an id.");
  return rpcError(id, INVALID_REQUEST, 'A request needs a "method" member.');
}

/** Whether the message is a request (has a method and an id), i.e. one that expects an answer. */
export function isRequest(value: unknown): boolean {
  return typeof value === "object" && value !== null && "method" in value && "id" in value;
}
