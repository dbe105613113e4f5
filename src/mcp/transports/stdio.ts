import type { Readable, Writable } from "node:stream";
import { isJSONRPCRequest, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/server";
import { checkEnvelope, INVALID_REQUEST, PARSE_ERROR, rpcError, type EnvelopeError } from "./envelope.ts";
import { frame, idKey, memberToken, numberChanged, RawIds } from "./raw-id.ts";

/** Largest single stdio line accepted, in bytes; a longer line is answered with an error and dropped. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/** After stdin ends, how long requests already in flight may still be answered before the transport closes, in ms. */
export const EOF_GRACE_MS = 500;

/**
 * Newline-delimited JSON-RPC over stdin/stdout with hardened framing: a line that is not JSON is answered
 * with -32700 and id null (never id 0) and the stream keeps going (M001, M002); a malformed envelope gets
 * -32600/-32602 (M006, M007); an over-long line is dropped with an error. Only JSON-RPC is ever written.
 * One UTF-8 byte order mark at the start of the stream is ignored (RFC 8259 §8.1, corpus T2-01). A request
 * the SDK would not recognise as one (it would drop it unanswered) is answered -32600 here, so every request
 * with an id gets exactly one answer (T2-04). stdin EOF closes the transport unconditionally: requests in
 * flight get EOF_GRACE_MS to be answered, then the SDK cancels them.
 *
 * Ids (corpus T3-14…T3-16): a request whose id is already in flight on this connection (the same string, or
 * a number of the same value) is refused with -32600 carrying that id and never reaches the server; the first
 * one is answered with its own result (a client that keeps one resolver per id gets the refusal for the
 * second call, which is the one refused). An id is in flight from the request until its answer is written,
 * or until the client cancels it (`notifications/cancelled`: the SDK sends no answer then). An integer id
 * beyond 2^53 (which `JSON.parse` may change: `9007199254740993`, a 23-digit id) reaches the SDK as a stand-in
 * string and is answered with the exact token the client sent; a fractional id parsing changed is refused
 * with id null; a string id stays a string.
 */
export class FramedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called with a request's method once its answer has been written (the front starts background work after tools/list). */
  onanswered?: (method: string) => void;
  private buffer = "";
  private discarding = false;
  private closed = false;
  private ended = false;
  private atStart = true;
  /** Requests handed to the server and not yet answered, by the id the server sees → method and in-flight key; stdin EOF waits for them. */
  private readonly pending = new Map<string | number, { method: string; key: string }>();
  /** In-flight keys (raw-id.ts idKey) of the requests in `pending`: a second request with one of them is refused. */
  private readonly inFlight = new Set<string>();
  /** Stand-in ids for numeric ids JSON.parse would change, and the raw tokens they stand for. */
  private readonly raws = new RawIds();

  constructor(private readonly input: Readable = process.stdin, private readonly output: Writable = process.stdout) {}

  start(): Promise<void> {
    this.input.setEncoding("utf8");
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("close", this.onEnd);
    this.input.on("error", this.onInputError);
    return Promise.resolve();
  }

  private readonly onData = (chunk: string): void => {
    if (this.atStart && chunk.length > 0) {
      this.atStart = false;
      if (chunk.startsWith("\uFEFF")) chunk = chunk.slice(1);
    }
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (this.discarding) { this.discarding = false; continue; }
      this.handleLine(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    if (this.buffer.length > MAX_LINE_BYTES) {
      this.buffer = "";
      this.discarding = true;
      this.reply(rpcError(null, -32600, `Message larger than ${MAX_LINE_BYTES} bytes dropped.`));
    }
  };

  private handleLine(line: string): void {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.reply(rpcError(null, PARSE_ERROR, "Parse error: the line is not valid JSON."));
      return;
    }
    const id = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
    // Only a number that is not a safe integer can have been changed by JSON.parse: scan the line for those
    // alone. An integer beyond 2^53 is served under a stand-in and answered with its token; a fraction is
    // no MCP request id (string or integer): refused, with id null if parsing changed it.
    const token = typeof id === "number" && !Number.isSafeInteger(id) ? memberToken(line, ["id"]) : undefined;
    const raw = token !== undefined && Number.isInteger(id) ? token : undefined;
    const problem = checkEnvelope(value) ?? (numberChanged(id, token) && raw === undefined ? rpcError(null, INVALID_REQUEST, `The id ${token} is not an integer nor a string (MCP request ids are one or the other).`) : null);
    if (problem) {
      const isNotification = typeof value === "object" && value !== null && !Array.isArray(value) && !("id" in value) && "method" in value && problem.error.code !== -32600;
      if (!isNotification) this.reply(problem, problem.id === id ? raw : undefined);
      return;
    }
    const msg = value as JSONRPCMessage;
    if ("method" in msg && "id" in msg) {
      const key = idKey(msg.id, raw);
      if (this.inFlight.has(key)) {
        this.reply(rpcError(msg.id, INVALID_REQUEST, `Request id ${raw ?? JSON.stringify(msg.id)} is already in flight on this connection: give each request in flight its own id. This request was not run; the earlier one is answered with its own result.`), raw);
        return;
      }
      const stand = raw === undefined ? undefined : this.raws.stand(raw);
      if (!isJSONRPCRequest(stand === undefined ? value : { ...msg, id: stand })) {
        this.raws.release(stand);
        this.reply(rpcError(msg.id, INVALID_REQUEST, "Invalid request: the message does not match the JSON-RPC request shape MCP expects."), raw);
        return;
      }
      if (stand !== undefined) msg.id = stand;
      this.inFlight.add(key);
      this.pending.set(msg.id, { method: msg.method, key });
    } else if ("method" in msg && msg.method === "notifications/cancelled") {
      this.onCancelled(msg as { params?: { requestId?: unknown } }, line);
    }
    this.onmessage?.(msg);
  }

  /**
   * A client cancelled one of its requests: the SDK aborts it and sends no answer, so its id stops being in
   * flight now. A request id beyond 2^53 is named by its stand-in for the SDK.
   */
  private onCancelled(msg: { params?: { requestId?: unknown } }, line: string): void {
    const params = msg.params;
    if (params === undefined) return;
    let requestId = params.requestId;
    if (typeof requestId === "number" && !Number.isSafeInteger(requestId)) {
      const token = memberToken(line, ["params", "requestId"]);
      const stand = token !== undefined && Number.isInteger(requestId) ? this.raws.standFor(token) : undefined;
      if (stand !== undefined) params.requestId = requestId = stand;
    }
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const entry = this.pending.get(requestId);
    if (entry === undefined) return;
    this.pending.delete(requestId);
    this.inFlight.delete(entry.key);
    this.raws.release(requestId);
    if (this.ended && this.pending.size === 0) setImmediate(() => { void this.close(); });
  }

  /**
   * stdin EOF: answer what is in flight (a client may close stdin right after its last request), but close
   * after EOF_GRACE_MS whatever is still pending: a front must never outlive its client.
   */
  private readonly onEnd = (): void => {
    if (this.ended) return;
    this.ended = true;
    if (this.pending.size === 0) void this.close();
    else setTimeout(() => { void this.close(); }, EOF_GRACE_MS).unref();
  };
  private readonly onInputError = (err: Error): void => { this.onerror?.(err); };

  /** Writes a refusal made here; `rawId`: the exact id token the client sent, when JSON.parse changed it. */
  private reply(message: EnvelopeError, rawId?: string): void {
    if (!this.closed) this.output.write(`${frame(message, rawId)}\n`);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const answerId = !("method" in message) && "id" in message && message.id !== null ? message.id : undefined;
      const rawId = this.raws.raw(answerId);
      // The id stops being in flight once its answer is queued: a request reusing it now is answered after.
      const entry = answerId === undefined ? undefined : this.pending.get(answerId);
      if (answerId !== undefined) {
        this.pending.delete(answerId);
        this.raws.release(answerId);
      }
      if (entry !== undefined) this.inFlight.delete(entry.key);
      const done = (): void => {
        if (entry !== undefined) this.onanswered?.(entry.method);
        if (this.ended && this.pending.size === 0) void this.close();
        resolve();
      };
      if (this.output.write(`${frame(message, rawId)}\n`)) done();
      else this.output.once("drain", done);
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("close", this.onEnd);
    this.input.off("error", this.onInputError);
    this.onclose?.();
    return Promise.resolve();
  }
}
