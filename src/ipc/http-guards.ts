/**
 * The HTTP guards shared by every HTTP listener hostgate runs: the MCP front's Streamable HTTP endpoint
 * (mcp/transports/http.ts), the daemon's approval console (daemon/console/) and the token check of the
 * daemon's tcp:// listener (ipc/server.ts). One module so the rules cannot drift apart (issue 23):
 * - DNS-rebinding protection: which Host and Origin header values are accepted. Loopback means `localhost`
 *   (optionally with a trailing root dot), a full dotted quad in 127.0.0.0/8, `[::1]`, or an IPv4-mapped
 *   loopback `[::ffff:127.x.y.z]`; nothing else (corpus M015–M020, M024).
 * - constant-time token comparison ({@link tokenEquals});
 * - request bodies read up to a byte limit, never buffered whole when larger ({@link readLimitedBody}).
 * It lives in ipc/ because both the front (which may import ipc/, never daemon/) and the daemon use it.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Splits a Host header value into hostname and port; null when it is not a syntactically valid host. */
export function parseHostHeader(value: string): { hostname: string; port: string | null } | null {
  const v = value.trim().toLowerCase();
  if (v === "" || /[\s/@?#\\]/.test(v)) return null;
  if (v.startsWith("[")) {
    const close = v.indexOf("]");
    if (close < 0) return null;
    const rest = v.slice(close + 1);
    if (rest !== "" && !validPort(rest.slice(1))) return null;
    return { hostname: v.slice(0, close + 1), port: rest === "" ? null : rest.slice(1) };
  }
  const parts = v.split(":");
  if (parts.length > 2) return null;
  if (parts.length === 2 && !validPort(parts[1]!)) return null;
  return { hostname: parts[0]!, port: parts[1] ?? null };
}

const validPort = (p: string): boolean => /^\d{1,5}$/.test(p) && Number(p) <= 65535;

const isDottedQuadLoopback = (h: string): boolean => {
  const octets = h.split(".");
  return octets.length === 4 && octets.every((o) => /^(0|[1-9]\d{0,2})$/.test(o) && Number(o) <= 255) && octets[0] === "127";
};

/** Whether a hostname (as returned by parseHostHeader) names this machine's loopback interface. */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (h === "localhost") return true;
  if (isDottedQuadLoopback(h)) return true;
  if (h === "[::1]" || h === "[0:0:0:0:0:0:0:1]") return true;
  const mapped = /^\[::ffff:([\d.]+)\]$/.exec(h);
  if (mapped !== null) return isDottedQuadLoopback(mapped[1]!);
  // The same address as the WHATWG URL parser writes it (Origin hosts): [::ffff:7f00:1] is 127.0.0.1.
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(h);
}

/** Whether a bind address is loopback (then no token is required). */
export function isLoopbackBind(address: string): boolean {
  return address === "localhost" || isDottedQuadLoopback(address) || address === "::1";
}

/** Accepts a Host header when it is loopback or listed in `allowed` (names compared without port). */
export function hostAllowed(value: string | undefined, allowed: readonly string[]): boolean {
  if (value === undefined) return false;
  const parsed = parseHostHeader(value);
  if (!parsed) return false;
  return isLoopbackHostname(parsed.hostname) || allowed.map((a) => a.toLowerCase()).includes(parsed.hostname);
}

/**
 * Accepts a request's Origin: absent is fine (non-browser clients send none); present, there must be
 * exactly one, `null` only when listed, otherwise an http(s) URL whose host is loopback or listed.
 */
export function originAllowed(values: string | string[] | undefined, allowed: readonly string[]): boolean {
  if (values === undefined) return true;
  const list = Array.isArray(values) ? values : [values];
  if (list.length !== 1 || list[0]!.includes(",")) return false;
  const origin = list[0]!.trim();
  if (allowed.includes(origin)) return true;
  if (origin === "null") return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return isLoopbackHostname(url.hostname.toLowerCase());
}

/**
 * Constant-time token comparison: both sides are hashed with SHA-256 first, so neither the length nor the
 * content of `expected` leaks through timing. Used for bearer tokens, tcp:// tokens and console secrets.
 */
export function tokenEquals(presented: string, expected: string): boolean {
  return timingSafeEqual(createHash("sha256").update(presented).digest(), createHash("sha256").update(expected).digest());
}

/** What {@link readLimitedBody} resolves to: the body as UTF-8 text, or why there is none. */
export type LimitedBody = { ok: true; text: string } | { ok: false; reason: "too_large" | "aborted" };

/** Decodes request bodies: invalid sequences become U+FFFD (as Buffer#toString), one leading BOM is dropped. */
const utf8 = new TextDecoder("utf-8");

/**
 * Reads a request body of at most `limit` bytes. A declared Content-Length over the limit is refused before
 * any byte is read; a chunked upload is refused as soon as the bytes received pass it (what was buffered is
 * dropped). On `too_large` the caller answers 413 and should call {@link discardRest}. `aborted`: the client
 * went away or the stream failed. Never rejects.
 */
export function readLimitedBody(req: IncomingMessage, limit: number): Promise<LimitedBody> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > limit) return Promise.resolve({ ok: false, reason: "too_large" });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: LimitedBody): void => { if (!done) { done = true; resolve(r); } };
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish({ ok: false, reason: "too_large" });
        return;
      }
      chunks.push(chunk);
    });
    // TextDecoder drops one leading UTF-8 BOM (as the SDK's Request.json() does); Buffer#toString keeps it.
    req.on("end", () => { finish({ ok: true, text: utf8.decode(Buffer.concat(chunks)) }); });
    req.on("error", () => { finish({ ok: false, reason: "aborted" }); });
  });
}

/**
 * After a 413: discards (never buffers) whatever the client is still sending, and cuts the connection after
 * `graceMs` if it keeps going, so the client can read the answer instead of seeing a reset mid-upload.
 */
export function discardRest(req: IncomingMessage, graceMs = 5_000): void {
  req.removeAllListeners("data");
  req.resume();
  setTimeout(() => { if (!req.complete) req.socket.destroy(); }, graceMs).unref();
}
