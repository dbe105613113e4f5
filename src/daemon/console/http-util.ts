/**
 * Small HTTP helpers of the console server: security headers on every answer, cookies, and answers as HTML,
 * JSON or a redirect. The header set is the console's web-security contract (issue 23): a strict CSP (scripts
 * and styles from the console's own origin only, no inline script, no framing, forms only to itself), no
 * sniffing, no referrer, nothing cached.
 */
import type { ServerResponse } from "node:http";

/** The Content-Security-Policy of every console answer. */
export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Headers set on every answer. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** Writes one whole answer with the security headers. */
export function send(res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, "content-length": Buffer.byteLength(body), ...extra });
  res.end(body);
}

/** An HTML page. */
export const sendHtml = (res: ServerResponse, status: number, html: string, extra: Record<string, string | string[]> = {}): void => { send(res, status, "text/html; charset=utf-8", html, extra); };

/** A JSON value. */
export const sendJson = (res: ServerResponse, status: number, value: unknown, extra: Record<string, string | string[]> = {}): void => { send(res, status, "application/json", JSON.stringify(value), extra); };

/** 303 See Other to a path of the console (after a form post). */
export const redirect = (res: ServerResponse, location: string, extra: Record<string, string | string[]> = {}): void => { send(res, 303, "text/plain; charset=utf-8", "", { location, ...extra }); };

/** The value of one cookie from a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A session cookie: HttpOnly, SameSite=Strict, whole console, ended by the browser after `maxAgeS` (0: now). */
export function sessionCookie(name: string, value: string, maxAgeS: number): string {
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeS}`;
}
