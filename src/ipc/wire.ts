import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { ErrorBodySchema, PROTOCOL_VERSION, type Progress } from "./protocol.ts";
import { MAX_TRACESTATE } from "../core/trace.ts";

/** Largest single IPC message, in bytes (an answer is capped at 1 MiB; this leaves room for the envelope). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** One request on a daemon socket: newline-delimited JSON. `token` is required on tcp:// listeners. */
export const IpcRequestSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  id: z.union([z.number().int(), z.string().max(64)]),
  method: z.string().min(1).max(64),
  params: z.unknown().optional(),
  token: z.string().max(512).optional(),
  /** The MCP client's self-reported name, recorded in the caller (untrusted). */
  client: z.string().max(256).optional(),
  /** The caller wants progress lines ({@link IpcProgressLine}) before the answer (issue 24: long applies). */
  progress: z.literal(true).optional(),
  /**
   * The W3C trace context of the MCP request this call serves (issue 25; core/trace.ts), sent only by a front with
   * tracing on: the daemon's spans of the call become its children. Checked again by the daemon (a malformed one is ignored).
   */
  trace: z.object({ traceparent: z.string().max(128), tracestate: z.string().max(MAX_TRACESTATE).optional() }).strict().optional(),
}).strict();
export type IpcRequest = z.infer<typeof IpcRequestSchema>;

export type { Progress } from "./protocol.ts";

/** A progress line the daemon sends before the answer of a request that asked for it (`progress: true`). */
export interface IpcProgressLine { v: typeof PROTOCOL_VERSION; id: number | string; progress: Progress }

/** Cancels one in-flight request of the same connection (its MCP client cancelled); no response is sent. */
export const IpcCancelSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  cancel: z.union([z.number().int(), z.string().max(64)]),
}).strict();

/** One response: the value, or an error with a stable code. */
export type IpcResponse =
  | { v: typeof PROTOCOL_VERSION; id: number | string | null; ok: true; result: unknown }
  | { v: typeof PROTOCOL_VERSION; id: number | string | null; ok: false; error: z.infer<typeof ErrorBodySchema> };

/**
 * Splits a byte stream into lines and hands each to `onLine`. UTF-8 is decoded across chunk boundaries (a
 * character split between two chunks stays whole). A line longer than MAX_MESSAGE_BYTES is reported once
 * with `onOverflow`, given its first 256 characters (enough to read a response's id), as soon as it crosses
 * the limit, and dropped up to its end.
 */
export function lineReader(onLine: (line: string) => void, onOverflow: (head: string) => void): (chunk: Buffer) => void {
  const decoder = new StringDecoder("utf8");
  // The current line's pieces so far (none holds a newline): joined once the line ends, never rescanned.
  let parts: string[] = [];
  let size = 0;
  let discarding = false;
  return (chunk) => {
    let text = decoder.write(chunk);
    let nl: number;
    while ((nl = text.indexOf("\n")) >= 0) {
      const line = parts.join("") + text.slice(0, nl);
      text = text.slice(nl + 1);
      parts = [];
      size = 0;
      if (discarding) { discarding = false; continue; }
      if (line.trim() !== "") onLine(line);
    }
    if (discarding || text === "") return;
    parts.push(text);
    size += text.length;
    if (size > MAX_MESSAGE_BYTES) {
      onOverflow(parts.join("").slice(0, 256));
      parts = [];
      size = 0;
      discarding = true;
    }
  };
}
