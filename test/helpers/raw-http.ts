import { request } from "node:http";

/** A raw HTTP exchange with full control over headers (fetch forbids setting Host), for protocol tests. */
export function rawHttp(url: string, opts: { method?: string; headers?: Record<string, string | string[]>; body?: string | Buffer; chunked?: Buffer[] } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: opts.method ?? "POST", headers: {
      "content-type": "application/json", accept: "application/json, text/event-stream", ...opts.headers,
    } }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => { body += c.toString(); });
      res.on("end", () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body }); });
      res.on("error", reject);
    });
    // A server may answer (e.g. 413) and close while the body is still being written: the answer counts.
    req.on("error", (err) => { reject(err); });
    if (opts.chunked) {
      for (const c of opts.chunked) req.write(c);
      req.end();
    } else {
      req.end(opts.body);
    }
  });
}

/** The initialize request a 2025-06-18 client sends. */
export const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });

/** A 2025-era stateless tools/call body. */
export function toolsCall(id: number, name: string, args: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
}
