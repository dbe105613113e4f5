import { z } from "zod";
import { ErrorBodySchema, PROTOCOL_VERSION } from "./protocol.ts";

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
}).strict();
export type IpcRequest = z.infer<typeof IpcRequestSchema>;

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
 * Splits a byte stream into lines and hands each to `onLine`. A line longer than MAX_MESSAGE_BYTES is
 * reported with `onOverflow` and dropped up to its end.
 */
export function lineReader(onLine: (line: string) => void, onOverflow: () => void): (chunk: Buffer) => void {
  let buffer = "";
  let discarding = false;
  return (chunk) => {
    buffer += chunk.toString("utf8");
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (discarding) { discarding = false; continue; }
      if (line.trim() !== "") onLine(line);
    }
    if (buffer.length > MAX_MESSAGE_BYTES) {
      buffer = "";
      discarding = true;
      onOverflow();
    }
  };
}
