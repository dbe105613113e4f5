/**
 * The HTTP front's own serving paths, in process, against the SDK's reference wiring: 2025-era POSTs are
 * served Node-native (http-exchange.ts) and must answer exactly as the SDK's stateless Streamable HTTP
 * transport in JSON response mode does (status and body, case by case); 2026-07-28 requests go through the
 * SDK handler via http-web.ts and must answer as the SDK's own `toNodeHandler` does. Both write a JSON answer
 * in one piece with Content-Length. A fresh server per request (M028, M029): nothing a request sets is seen
 * by the next; a client that disconnects cancels its call.
 */
import { createServer, request, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "./http.ts";

/** Signals of `wait` calls, to see a disconnect cancel one. */
const waits: AbortSignal[] = [];

/** A small real SDK server: `whoami` answers the client name the server instance knows; `wait` waits for its signal. */
function makeServer(): Server {
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler("tools/list", () => ({ tools: [{ name: "whoami", inputSchema: { type: "object" as const } }] }));
  server.setRequestHandler("tools/call", async (req, ctx) => {
    if (req.params.name === "wait") {
      waits.push(ctx.mcpReq.signal);
      await new Promise((resolve) => { ctx.mcpReq.signal.addEventListener("abort", resolve); });
      return { content: [] };
    }
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the accessor under test
    return { content: [{ type: "text" as const, text: JSON.stringify({ client: server.getClientVersion()?.name ?? null, args: req.params.arguments ?? {} }) }] };
  });
  return server;
}

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: string }

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => { text += c; });
      res.on("end", () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }); });
    });
    req.on("error", reject);
    req.end(body);
  });
}

function listen(server: HttpServer): Promise<string> {
  return new Promise((resolve) => { server.listen(0, "127.0.0.1", () => { resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`); }); });
}

/** The SDK's reference for 2025-era requests: a fresh server on a stateless JSON-mode transport, via toNodeHandler. */
const reference = createServer((req, res) => {
  void toNodeHandler({
    fetch: async (request) => {
      const server = makeServer();
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      return transport.handleRequest(request);
    },
  })(req, res);
});
/** The SDK's reference for 2026-07-28 requests: its own handler through its own Node adapter. */
const modernHandler = toNodeHandler(createMcpHandler(() => makeServer(), { legacy: "reject", responseMode: "json" }));
const modernReference = createServer((req, res) => { void modernHandler(req, res); });

let front: Awaited<ReturnType<typeof startHttpServer>>;
let referenceUrl: string;
let modernReferenceUrl: string;

beforeAll(async () => {
  front = await startHttpServer(makeServer, { host: "127.0.0.1", port: 0, allowed_hosts: [], allowed_origins: [], max_body_bytes: 1024 * 1024 });
  referenceUrl = await listen(reference);
  modernReferenceUrl = await listen(modernReference);
});
afterAll(async () => {
  await front.close();
  reference.close();
  modernReference.close();
});

const call = (id: number, args: unknown = {}): string => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "whoami", arguments: args } });
const init = (name: string): string => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name, version: "1" } } });

/** 2025-era inputs that pass the front's own checks (Host, envelope, size) and reach the serving path. */
const LEGACY_CASES: { name: string; body: string; headers?: Record<string, string> }[] = [
  { name: "tools/call", body: call(1, { a: 1 }) },
  { name: "tools/call with a string id", body: JSON.stringify({ jsonrpc: "2.0", id: "x-1", method: "tools/call", params: { name: "whoami" } }) },
  { name: "initialize", body: init("alpha") },
  { name: "initialize under an unknown protocol-version header", body: init("alpha"), headers: { "mcp-protocol-version": "1999-01-01" } },
  { name: "ping", body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) },
  { name: "tools/list under a known protocol-version header", body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }), headers: { "mcp-protocol-version": "2025-06-18" } },
  { name: "unknown method", body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "no/such" }) },
  { name: "tools/call without a name", body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: {} }) },
  { name: "notification", body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) },
  { name: "posted result", body: JSON.stringify({ jsonrpc: "2.0", id: 6, result: {} }) },
  { name: "posted error", body: JSON.stringify({ jsonrpc: "2.0", id: 7, error: { code: 1, message: "no" } }) },
  { name: "unsupported protocol-version header", body: call(9), headers: { "mcp-protocol-version": "1999-01-01" } },
  { name: "Accept without text/event-stream", body: call(10), headers: { accept: "application/json" } },
  { name: "Accept without application/json", body: call(11), headers: { accept: "text/event-stream" } },
  // A body led by a UTF-8 BOM: the SDK reads it with Request.json() (UTF-8 decode drops one BOM), as JSON text readers do.
  { name: "a body led by a UTF-8 byte order mark", body: `\uFEFF${call(12)}` },
];

describe("2025-era POSTs (Node-native path)", () => {
  it.each(LEGACY_CASES)("answers $name as the SDK's stateless JSON-mode transport does", async ({ body, headers }) => {
    const [ours, sdk] = await Promise.all([post(front.url, body, headers), post(referenceUrl, body, headers)]);
    expect(ours.status).toBe(sdk.status);
    expect(ours.body === "" ? "" : JSON.parse(ours.body)).toEqual(sdk.body === "" ? "" : JSON.parse(sdk.body));
    if (ours.body !== "") expect(ours.headers["content-type"]).toBe("application/json");
  });

  it("writes every answer whole, with Content-Length (no chunked framing)", async () => {
    for (const body of [call(1), JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })]) {
      const r = await post(front.url, body);
      expect(r.headers["transfer-encoding"]).toBeUndefined();
      expect(Number(r.headers["content-length"])).toBe(Buffer.byteLength(r.body));
    }
  });

  it("builds a fresh server per request: an initialize's client name is never seen by a later call (M028, M029)", async () => {
    expect((await post(front.url, init("alpha"))).status).toBe(200);
    const r = await post(front.url, call(2));
    expect(JSON.parse((JSON.parse(r.body) as { result: { content: { text: string }[] } }).result.content[0]!.text)).toEqual({ client: null, args: {} });
  });

  it("cancels a call whose client disconnects before the answer", async () => {
    const before = waits.length;
    const req = request(front.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" } });
    req.on("error", () => undefined);
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "wait" } }));
    await expect.poll(() => waits.length).toBe(before + 1);
    expect(waits[before]!.aborted).toBe(false);
    req.destroy();
    await expect.poll(() => waits[before]!.aborted).toBe(true);
  });
});

const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "beta", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
const MODERN_HEADERS = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "whoami" };
const modernCall = (id: number): string => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "whoami", arguments: {}, _meta: MODERN_META } });

describe("2026-07-28 requests and classifier rejections (SDK handler)", () => {
  it.each([
    { name: "tools/call", body: modernCall(1), headers: MODERN_HEADERS },
    { name: "server/discover", body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "server/discover", params: { _meta: MODERN_META } }), headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" } },
    { name: "an Mcp-Name header that does not match the body", body: modernCall(3), headers: { ...MODERN_HEADERS, "mcp-name": "other" } },
    { name: "a missing MCP-Protocol-Version header", body: modernCall(4), headers: { "mcp-method": "tools/call", "mcp-name": "whoami" } },
    { name: "a body the era classifier rejects (a result that is not an object)", body: JSON.stringify({ jsonrpc: "2.0", id: 8, result: 5 }), headers: {} },
  ] as { name: string; body: string; headers: Record<string, string> }[])("answers $name as the SDK's own Node adapter does", async ({ body, headers }) => {
    const [ours, sdk] = await Promise.all([post(front.url, body, headers), post(modernReferenceUrl, body, headers)]);
    expect(ours.status).toBe(sdk.status);
    expect(JSON.parse(ours.body)).toEqual(JSON.parse(sdk.body));
    expect(ours.headers["transfer-encoding"]).toBeUndefined();
    expect(Number(ours.headers["content-length"])).toBe(Buffer.byteLength(ours.body));
  });

  it("T3-15: answers an integer id beyond 2^53 with the exact token sent, on both eras", async () => {
    const big = "12345678901234567890123";
    const modern = await post(front.url, modernCall(1).replace('"id":1,', `"id":${big},`), MODERN_HEADERS);
    expect(modern.status).toBe(200);
    expect(modern.body).toMatch(new RegExp(`"id":${big}[,}]`));
    expect(JSON.parse(modern.body)).toHaveProperty("result.content");
    expect(Number(modern.headers["content-length"])).toBe(Buffer.byteLength(modern.body));
    const legacy = await post(front.url, call(1).replace('"id":1,', `"id":${big},`));
    expect(legacy.body).toMatch(new RegExp(`"id":${big}[,}]`));
    expect(JSON.parse(legacy.body)).toHaveProperty("result.content");
  });

  it("knows the caller's client name from the request's own envelope only", async () => {
    const r = await post(front.url, modernCall(5), MODERN_HEADERS);
    expect(JSON.parse((JSON.parse(r.body) as { result: { content: { text: string }[] } }).result.content[0]!.text)).toMatchObject({ client: "beta" });
    const legacy = await post(front.url, call(6));
    expect(JSON.parse((JSON.parse(legacy.body) as { result: { content: { text: string }[] } }).result.content[0]!.text)).toMatchObject({ client: null });
  });

  it("streams a subscriptions/listen answer (SSE) as the SDK does, and survives the client leaving", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: "sub-1", method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: MODERN_META } });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" };
    /** Opens the stream, reads its first event, then leaves. */
    const firstEvent = (url: string): Promise<{ status: number; type: string | undefined; event: unknown }> => new Promise((resolve, reject) => {
      const req = request(url, { method: "POST", headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
          const end = text.indexOf("\n\n");
          if (end < 0) return;
          const data = text.slice(0, end).split("\n").find((l) => l.startsWith("data: "))!.slice(6);
          resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], event: JSON.parse(data) });
          req.destroy();
        });
      });
      req.on("error", (err) => { if (!req.destroyed) reject(err); });
      req.end(body);
    });
    const [ours, sdk] = await Promise.all([firstEvent(front.url), firstEvent(modernReferenceUrl)]);
    expect(ours.type).toBe("text/event-stream");
    expect(ours).toEqual(sdk);
    expect((await post(front.url, call(1))).status).toBe(200);
  });

  it("answers a GET as the SDK does (no stream on a stateless endpoint)", async () => {
    const get = (url: string): Promise<Answer> => new Promise((resolve, reject) => {
      request(url, { headers: { accept: "text/event-stream" } }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => { text += c.toString(); });
        res.on("end", () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }); });
      }).on("error", reject).end();
    });
    const [ours, sdk] = await Promise.all([get(front.url), get(modernReferenceUrl)]);
    expect(ours.status).toBe(sdk.status);
    expect(JSON.parse(ours.body)).toEqual(JSON.parse(sdk.body));
  });
});
