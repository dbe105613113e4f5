import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { classifyInboundRequest, createMcpHandler, type Server } from "@modelcontextprotocol/server";
import { discardRest, hostAllowed, isLoopbackBind, originAllowed, readLimitedBody, tokenEquals } from "../../ipc/http-guards.ts";
import { checkEnvelope, INVALID_REQUEST, PARSE_ERROR, rpcError } from "./envelope.ts";
import { serveLegacyPost, writeJson } from "./http-exchange.ts";
import { serveWithHandler } from "./http-web.ts";
import { memberToken, numberChanged } from "./raw-id.ts";

/** Settings of the Streamable HTTP endpoint (config `server.*`). */
export interface HttpOptions {
  host: string;
  port: number;
  token?: string | undefined;
  allowed_hosts: readonly string[];
  allowed_origins: readonly string[];
  max_body_bytes: number;
}

/** The MCP endpoint path. */
export const MCP_PATH = "/mcp";

/** A request header as an optional field of the SDK's classifier input (absent when the header is). */
function header<K extends string>(req: IncomingMessage, name: string, key: K): Partial<Record<K, string>> {
  const value = req.headers[name];
  return typeof value === "string" ? { [key]: value } as Partial<Record<K, string>> : {};
}

/**
 * Reads a request body up to `limit` bytes (ipc/http-guards.ts). Resolves null after answering 413 itself when
 * the declared Content-Length or the bytes actually received (chunked uploads) exceed the limit (corpus M012),
 * so no oversized body is ever buffered whole.
 */
async function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<string | null> {
  const body = await readLimitedBody(req, limit);
  if (body.ok) return body.text;
  if (body.reason === "too_large") {
    writeJson(res, 413, rpcError(null, -32600, `Request body larger than ${limit} bytes (server.max_body_bytes).`));
    discardRest(req);
  }
  return null;
}

/**
 * Runs `build` with the SDK's start-up notices on `console.warn` turned into hostgate's own stderr lines
 * (`hostgate: MCP SDK: …`), so nothing unprefixed reaches the user's terminal (issue 22). The notice that JSON
 * response mode drops mid-call notifications is dropped: hostgate chooses that mode on purpose (every answer
 * travels on its own POST's response; tools send no mid-call notifications), so it says nothing to the user.
 */
function quietSdk<T>(build: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    const line = args.map(String).join(" ");
    if (line.startsWith("responseMode: 'json' drops mid-call notifications")) return;
    process.stderr.write(`hostgate: MCP SDK: ${line}\n`);
  };
  try {
    return build();
  } finally {
    console.warn = warn;
  }
}

/**
 * Starts the Streamable HTTP endpoint. Before the SDK sees a request: path, Host and Origin are checked
 * (403 naming the setting to change), the bearer token when configured (401), the body size (413), the
 * content type (415), JSON parse (-32700) and the envelope (-32600/-32602, batches refused whole). The SDK's
 * era classifier then routes the POST: a 2025-era one is served Node-native by `serveLegacyPost`, anything
 * else (2026-07-28, classifier rejections, GET/DELETE) by the SDK's `createMcpHandler`. Both serve statelessly,
 * a fresh server per request, so concurrent clients never share state (M028, M029). Refuses to start on a
 * non-loopback address without a token.
 *
 * Ids: an integer id beyond 2^53 reaches the SDK as a stand-in and is answered with the exact token sent
 * (raw-id.ts, T3-15); a fractional id that parsing changed is refused with id null. No id is ever refused as
 * "in flight" here (T3-14 is a stdio matter): the server issues no sessions, and each answer travels on the
 * HTTP response of its own POST, so two concurrent POSTs with one id are two exchanges that cannot be
 * confused. For the same reason an `Mcp-Session-Id` header a client still holds is ignored (T3-17).
 */
export async function startHttpServer(factory: () => Server, opts: HttpOptions): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  if (!isLoopbackBind(opts.host) && !opts.token) {
    throw new Error(`Refusing to listen on ${opts.host} without a bearer token: set server.token in the config or HOSTGATE_HTTP_TOKEN, and list the names clients use in server.allowed_hosts.`);
  }
  const modern = quietSdk(() => createMcpHandler(() => factory(), { legacy: "reject", responseMode: "json", maxRequestBodySize: opts.max_body_bytes }));
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://placeholder");
      const hosts = req.headersDistinct.host ?? [];
      if (hosts.length !== 1 || !hostAllowed(hosts[0], opts.allowed_hosts)) {
        writeJson(res, 403, rpcError(null, -32600, `Host header ${JSON.stringify(hosts.join(", "))} is not allowed (DNS-rebinding protection). Add the name clients use to server.allowed_hosts.`));
        return;
      }
      if (!originAllowed(req.headersDistinct.origin, opts.allowed_origins)) {
        writeJson(res, 403, rpcError(null, -32600, `Origin ${JSON.stringify((req.headersDistinct.origin ?? []).join(", "))} is not allowed. Add it to server.allowed_origins.`));
        return;
      }
      if (url.pathname !== MCP_PATH) {
        writeJson(res, 404, { error: `Not found. The MCP endpoint is ${MCP_PATH}.` });
        return;
      }
      if (opts.token) {
        const auth = req.headers.authorization ?? "";
        const presented = /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, "") : "";
        if (!tokenEquals(presented, opts.token)) {
          writeJson(res, 401, rpcError(null, -32600, "Missing or wrong bearer token: send Authorization: Bearer <server.token>."), { "www-authenticate": 'Bearer realm="hostgate"' });
          return;
        }
      }
      if (req.method !== "POST") {
        await serveWithHandler(req, res, modern, undefined);
        return;
      }
      const contentType = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
      if (contentType !== "application/json") {
        writeJson(res, 415, rpcError(null, -32600, "Content-Type must be application/json."));
        return;
      }
      const body = await readBody(req, res, opts.max_body_bytes);
      if (body === null) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        writeJson(res, 400, rpcError(null, PARSE_ERROR, "Parse error: the body is not valid JSON."));
        return;
      }
      // An integer id beyond 2^53 travels as a stand-in (raw-id.ts) and is answered with the exact token sent.
      const id = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as { id?: unknown }).id : undefined;
      const token = typeof id === "number" && !Number.isSafeInteger(id) ? memberToken(body, ["id"]) : undefined;
      const raw = token !== undefined && Number.isInteger(id) ? token : undefined;
      const problem = checkEnvelope(parsed) ?? (numberChanged(id, token) && raw === undefined ? rpcError(null, INVALID_REQUEST, `The id ${token} is not an integer nor a string (MCP request ids are one or the other).`) : null);
      if (problem) {
        writeJson(res, 400, problem, {}, problem.id === id ? raw : undefined);
        return;
      }
      const stand = raw === undefined ? undefined : `hostgate-raw-id:${globalThis.crypto.randomUUID()}`;
      if (stand !== undefined) parsed = { ...(parsed as object), id: stand };
      // The SDK's own era classifier (the one createMcpHandler routes by), from the parsed body and headers.
      const route = classifyInboundRequest({
        httpMethod: "POST",
        body: parsed,
        ...header(req, "mcp-protocol-version", "protocolVersionHeader"),
        ...header(req, "mcp-method", "mcpMethodHeader"),
        ...header(req, "mcp-name", "mcpNameHeader"),
      });
      if (route.kind === "legacy") await serveLegacyPost(req, res, parsed, factory, raw);
      else await serveWithHandler(req, res, modern, parsed, stand !== undefined && raw !== undefined ? { stand, raw } : undefined);
    })().catch((err: unknown) => {
      process.stderr.write(`hostgate: HTTP request failed: ${(err as Error).message}\n`);
      writeJson(res, 500, rpcError(null, -32603, "Internal error."));
    });
  });
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => { server.off("error", reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${hostForUrl}:${port}${MCP_PATH}`,
    port,
    close: async () => {
      await modern.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}
