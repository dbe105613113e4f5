import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpHttpHandler } from "@modelcontextprotocol/server";

/**
 * Hands a Node request to the SDK's web-standard handler (`handler.fetch`) and writes its Response back: the
 * SDK's `toNodeHandler` without its costs for what hostgate already did. The body was read, size-checked and
 * parsed before (`parsedBody`), so the fetch Request carries none (the SDK reads `parsedBody` and never the
 * body when it is given). A JSON answer is written whole, with Content-Length, in one write; an SSE answer
 * (subscriptions/listen, a GET stream) is streamed with write backpressure. The client disconnecting aborts
 * the Request's signal, which cancels the exchange in the SDK. `ids`: when `parsedBody` carries a stand-in id
 * (raw-id.ts), the stand-in and the exact token to write in its place: the stand-in is a random string that
 * only the SDK's echo of the id can contain, replaced in the answer's text (SSE events are written whole).
 */
export async function serveWithHandler(req: IncomingMessage, res: ServerResponse, handler: McpHttpHandler, parsedBody: unknown, ids?: { stand: string; raw: string }): Promise<void> {
  let finished = false;
  const abort = new AbortController();
  res.once("close", () => { if (!finished) abort.abort(); });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // The body is not forwarded: its framing headers would describe bytes the Request does not carry.
    if (value === undefined || name === "content-length" || name === "transfer-encoding" || name === "content-encoding") continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, { method: req.method ?? "GET", headers, signal: abort.signal });
  const response = await handler.fetch(request, parsedBody === undefined ? {} : { parsedBody });
  const out: Record<string, string> = {};
  for (const [name, value] of response.headers) out[name] = value;
  const isStream = (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
  if (response.body === null || !isStream) {
    const text = restore(response.body === null ? "" : await response.text(), ids);
    finished = true;
    if (res.headersSent || res.destroyed) return;
    res.writeHead(response.status, { ...out, "content-length": String(Buffer.byteLength(text)) });
    res.end(text);
    return;
  }
  res.writeHead(response.status, out);
  res.flushHeaders();
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (abort.signal.aborted) break;
      if (!res.write(ids ? restore(decoder.decode(chunk, { stream: true }), ids) : chunk)) await new Promise<void>((resolve) => { const go = (): void => { res.off("drain", go); res.off("close", go); resolve(); }; res.once("drain", go); res.once("close", go); });
    }
  } catch {
    // The stream failed or the client went away: end what was sent.
  }
  finished = true;
  res.end();
}


/** `text` with the JSON string of the stand-in id replaced by the exact token the client sent. */
function restore(text: string, ids: { stand: string; raw: string } | undefined): string {
  return ids ? text.replaceAll(JSON.stringify(ids.stand), ids.raw) : text;
}
