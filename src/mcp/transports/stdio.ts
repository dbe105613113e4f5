import type { Readable, Writable } from "node:stream";
import { isJSONRPCRequest, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/server";
import { checkEnvelope, INVALID_REQUEST, PARSE_ERROR, rpcError, type EnvelopeError } from "./envelope.ts";

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
  /** Requests handed to the server and not yet answered, id → method; stdin EOF waits for them. */
  private readonly pending = new Map<string | number, string>();

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
    const problem = checkEnvelope(value);
    if (problem) {
      const isNotification = typeof value === "object" && value !== null && !Array.isArray(value) && !("id" in value) && "method" in value && problem.error.code !== -32600;
      if (!isNotification) this.reply(problem);
      return;
    }
    const msg = value as JSONRPCMessage;
    if ("method" in msg && "id" in msg) {
      if (!isJSONRPCRequest(value)) {
        this.reply(rpcError(msg.id, INVALID_REQUEST, "Invalid request: the message does not match the JSON-RPC request shape MCP expects."));
        return;
      }
      this.pending.set(msg.id, msg.method);
    }
    this.onmessage?.(msg);
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

  private reply(message: EnvelopeError): void {
    if (!this.closed) this.output.write(`${JSON.stringify(message)}\n`);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        if (!("method" in message) && "id" in message && message.id !== undefined) {
          const method = this.pending.get(message.id);
          this.pending.delete(message.id);
          if (method !== undefined) this.onanswered?.(method);
        }
        if (this.ended && this.pending.size === 0) void this.close();
        resolve();
      };
      if (this.output.write(`${JSON.stringify(message)}\n`)) done();
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
