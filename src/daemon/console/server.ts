/**
 * The approval console's HTTP server (issue 23), run by the daemon (never by the MCP front): loopback only
 * (127.0.0.1 and ::1), its own port, served as `http://localhost:<port>` because WebAuthn needs a domain.
 * Every request passes the shared guards (ipc/http-guards.ts: Host must be a loopback name with this port,
 * DNS-rebinding protection; bodies ≤ {@link MAX_BODY_BYTES}), then:
 * - a POST must come from this origin (Origin header present and equal, Sec-Fetch-Site same-origin when sent):
 *   a cross-origin form post changes nothing;
 * - GET never changes state (a GET to an approve or reject URL answers 405);
 * - pages other than /login and /enroll need a session (one-time login link → HttpOnly SameSite=Strict cookie,
 *   idle expiry); every state-changing POST needs the session's CSRF token (form field `csrf` or header
 *   `x-csrf-token`);
 * - login and approve are rate limited ({@link LOGIN_PER_MINUTE}, {@link APPROVE_PER_MINUTE}).
 * Approve = a passkey assertion checked by the passkey backend (app/passkeys.ts `approveWithPasskey`); reject =
 * app/approve.ts `reject`. Routes: routes.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { DaemonDeps } from "../../app/deps.ts";
import type { Caller } from "../../core/caller.ts";
import { RateLimiter, SessionBook, type LinkPurpose } from "../../core/console/sessions.ts";
import { isLoopbackHostname, parseHostHeader, tokenEquals } from "../../ipc/http-guards.ts";
import { messagePage } from "./pages.ts";
import { sendHtml } from "./http-util.ts";
import type { PasskeyBackend, RelyingParty } from "./passkey-backend.ts";
import { handleRoute } from "./routes.ts";

/** Largest request body the console reads (bytes): a WebAuthn response is a few KiB. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Login and enrollment attempts allowed per minute. */
export const LOGIN_PER_MINUTE = 10;
/** Approve attempts (options + assertion) allowed per minute. */
export const APPROVE_PER_MINUTE = 20;

/** How the console runs. */
export interface ConsoleOptions {
  /** TCP port on loopback; 0 picks a free one. */
  port: number;
  /** Session idle expiry, milliseconds. */
  idleMs: number;
  /** Which daemon serves it (the separation page says what that gives). */
  mode: "embedded" | "system";
  /** The passkey backend (app/passkeys.ts), or null when this build has none. */
  passkeys: PasskeyBackend | null;
}

/** A running console. */
export interface ConsoleServer {
  /** `http://localhost:<port>` */
  origin: string;
  port: number;
  /** A one-time link (`<origin>/login#<secret>` or `<origin>/enroll#<secret>`) valid 5 minutes, minted by `by`. */
  mintLink(purpose: LinkPurpose, by: Caller): { url: string; expires_at: number };
  close(): Promise<void>;
}

/** What routes.ts gets for one request. */
export interface ConsoleContext {
  deps: DaemonDeps;
  opts: ConsoleOptions;
  book: SessionBook;
  rp: RelyingParty;
  login: RateLimiter;
  approve: RateLimiter;
  port: number;
}

/** Whether the Host header names this console: one header, a loopback name, this exact port. */
export function consoleHostAllowed(values: readonly string[] | undefined, port: number): boolean {
  if (!values || values.length !== 1) return false;
  const parsed = parseHostHeader(values[0]!);
  return parsed !== null && isLoopbackHostname(parsed.hostname) && parsed.port === String(port);
}

/** Listens on one loopback address; resolves null when that address does not exist here (no IPv6). */
function listenOn(server: Server, port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      if (host === "::1" && (err.code === "EADDRNOTAVAIL" || err.code === "EAFNOSUPPORT")) resolve(false);
      else reject(err);
    };
    server.once("error", onError);
    server.listen(port, host, () => { server.off("error", onError); resolve(true); });
  });
}

/**
 * Starts the console on loopback. Throws when the port is taken, naming `console.port`. The daemon's
 * composition (daemon/console/feature.ts) calls this when `console.enabled` is set or `hostgate console` asks.
 */
export async function startConsole(deps: DaemonDeps, opts: ConsoleOptions): Promise<ConsoleServer> {
  const book = new SessionBook({
    now: () => deps.clock.now(),
    random: (n) => deps.crypto.randomBase64Url(n),
    sha256Hex: (t) => deps.crypto.sha256Hex(t),
    equals: tokenEquals,
  }, opts.idleMs);
  const now = (): number => deps.clock.now();
  const ctx: ConsoleContext = { deps, opts, book, rp: { id: "localhost", origin: "", name: "hostgate" }, login: new RateLimiter(LOGIN_PER_MINUTE, 60_000, now), approve: new RateLimiter(APPROVE_PER_MINUTE, 60_000, now), port: 0 };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (!consoleHostAllowed(req.headersDistinct.host, ctx.port)) {
      sendHtml(res, 403, messagePage("Refused", `This console answers only to http://localhost:${ctx.port} (DNS-rebinding protection).`, false));
      return;
    }
    handleRoute(ctx, req, res).catch((err: unknown) => {
      process.stderr.write(`hostgate: console request failed: ${(err as Error).message}\n`);
      if (!res.headersSent) sendHtml(res, 500, messagePage("Error", "Internal error; the daemon's stderr has the details."));
      else res.end();
    });
  };
  const v4 = createServer(handler);
  const v6 = createServer(handler);
  try {
    await listenOn(v4, opts.port, "127.0.0.1");
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new Error(e.code === "EADDRINUSE" ? `The console's port ${opts.port} on 127.0.0.1 is in use: set console.port to a free port.` : `The console cannot listen on 127.0.0.1:${opts.port}: ${e.message}`, { cause: err });
  }
  ctx.port = (v4.address() as AddressInfo).port;
  const hasV6 = await listenOn(v6, ctx.port, "::1").catch(() => false);
  const origin = `http://localhost:${ctx.port}`;
  ctx.rp = { id: "localhost", origin, name: "hostgate" };
  for (const s of [v4, v6]) { s.requestTimeout = 30_000; s.headersTimeout = 10_000; }
  const closeOne = (s: Server): Promise<void> => new Promise((resolve) => { s.closeAllConnections(); s.close(() => { resolve(); }); });
  return {
    origin,
    port: ctx.port,
    mintLink: (purpose, by) => {
      const link = book.mintLink(purpose, by);
      return { url: `${origin}/${purpose}#${link.secret}`, expires_at: link.expires_at };
    },
    close: async () => { await Promise.all([closeOne(v4), ...(hasV6 ? [closeOne(v6)] : [])]); },
  };
}
