/**
 * The console's routes (see server.ts for the rules every request passed before it gets here). GET routes
 * only read; every POST is same-origin, and all but login/enrollment carry the session's CSRF token.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { pending, reject, show } from "../../app/approve.ts";
import { history } from "../../app/history.ts";
import { anchorOf } from "../../app/passkeys.ts";
import { awaitingConfirm, confirm } from "../../app/revert.ts";
import { audit, checkpointRef } from "../../app/audit-log.ts";
import { actorOf, type Caller } from "../../core/caller.ts";
import type { Session } from "../../core/console/sessions.ts";
import { HostgateError } from "../../core/errors.ts";
import { discardRest, readLimitedBody } from "../../ipc/http-guards.ts";
import type { ShowResult } from "../../ipc/protocol.ts";
import { CONSOLE_CSS, CONSOLE_JS } from "./assets.ts";
import { cookieValue, redirect, send, sendHtml, sendJson, sessionCookie } from "./http-util.ts";
import { auditPage, enrollPage, historyPage, loginPage, messagePage, pendingPage, planPage, separationPage } from "./pages.ts";
import type { ShownStep } from "./passkey-backend.ts";
import { MAX_BODY_BYTES, type ConsoleContext } from "./server.ts";

/** The session cookie's name. */
export const COOKIE = "hostgate_console";
/** The cookie that binds a passkey enrollment to the browser that started it (its continuation secret). */
export const ENROLL_COOKIE = "hostgate_enroll";

/** The refusal of an enrollment link that cannot start a ceremony. */
const ENROLL_LINK_REFUSED = "This enrollment link is unknown, already used (a link works for the first browser that starts enrolling with it) or expired: run `hostgate console enroll` for a new one.";

/** The enrollment cookie: HttpOnly, SameSite=Strict, only for /enroll, ended after `maxAgeS` (0: now). */
const enrollCookie = (value: string, maxAgeS: number): string => sessionCookie(ENROLL_COOKIE, value, maxAgeS).replace("; Path=/;", "; Path=/enroll;");

/** The caller the console reads as (pages) and the actor of a refused link: the daemon's own console, no kernel peer. */
const CONSOLE_CALLER: Caller = { role: "admin", socket: "in_process", peer: null, client_name: null, label: "console" };

/**
 * The caller a session or an enrollment acts as: whoever minted its one-time link on the admin socket (kernel uid,
 * gid, pid), labelled `console` so the audit chain tells console acts from terminal ones (issue 23).
 */
const asConsole = (by: Caller): Caller => ({ ...by, label: "console" });

/** Records a refused one-time link (unknown, used or expired; never the secret) and refuses with `message`. */
async function linkRefused(c: ConsoleContext, purpose: "login" | "enroll", message: string): Promise<never> {
  await audit(c.deps.audit(), "console.link_refused", actorOf(CONSOLE_CALLER), { purpose, message: `${purpose} link unknown, used or expired` }).catch(() => undefined);
  throw new Refusal(403, message);
}

/** A refusal of a JSON endpoint. */
class Refusal extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

/** HTTP status for a use case's error code. */
function statusOf(err: HostgateError): number {
  switch (err.code) {
    case "unknown_transaction": return 404;
    case "invalid_params": return 400;
    case "transaction_closed": case "plan_changed": case "ambiguous_transaction": return 409;
    case "unavailable": return 503;
    default: return 403;
  }
}

/** The error as a message for the human: the use case's message and hint. */
const say = (err: HostgateError): string => `${err.message}${err.hint ? ` ${err.hint}` : ""}`;

/** Whether a POST comes from this console's own origin (cross-site form posts and fetches are refused). */
function sameOrigin(req: IncomingMessage, port: number): boolean {
  const origin = req.headersDistinct.origin;
  if (!origin || origin.length !== 1) return false;
  const host = req.headers.host ?? "";
  if (origin[0] !== `http://${host}` || !host.endsWith(`:${port}`)) return false;
  const site = req.headers["sec-fetch-site"];
  return site === undefined || site === "same-origin";
}

/** Reads a JSON object body (content-type application/json, ≤ MAX_BODY_BYTES). */
async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  if ((req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase() !== "application/json") throw new Refusal(415, "Send application/json.");
  const body = await readLimitedBody(req, MAX_BODY_BYTES);
  if (!body.ok) {
    if (body.reason === "too_large") discardRest(req);
    throw new Refusal(body.reason === "too_large" ? 413 : 400, body.reason === "too_large" ? `The request body is larger than ${MAX_BODY_BYTES} bytes.` : "The request body was cut off.");
  }
  let v: unknown;
  try {
    v = JSON.parse(body.text);
  } catch {
    throw new Refusal(400, "The request body is not JSON.");
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Refusal(400, "The request body must be a JSON object.");
  return v as Record<string, unknown>;
}

/** Reads a form body (application/x-www-form-urlencoded, ≤ MAX_BODY_BYTES). */
async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  if ((req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase() !== "application/x-www-form-urlencoded") throw new Refusal(415, "Send the form as application/x-www-form-urlencoded.");
  const body = await readLimitedBody(req, MAX_BODY_BYTES);
  if (!body.ok) {
    if (body.reason === "too_large") discardRest(req);
    throw new Refusal(413, "The form is too large.");
  }
  return new URLSearchParams(body.text);
}

/** A string field of a JSON body, 1..max characters, or a 400 naming it. */
function field(body: Record<string, unknown>, name: string, max: number): string {
  const v = body[name];
  if (typeof v !== "string" || v.length === 0 || v.length > max) throw new Refusal(400, `"${name}" must be a string of 1 to ${max} characters.`);
  return v;
}

/** An approver's name: 1..64 printable characters, no control or format characters. */
function approverName(body: Record<string, unknown>): string {
  const name = field(body, "name", 64).trim();
  if (name === "" || /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(name)) throw new Refusal(400, "The approver name must be 1 to 64 printable characters.");
  return name;
}

/** The plan's current steps as shown, from the request body (`shown`: [{transaction_id, preview_hash}]). */
function shownSteps(body: Record<string, unknown>): ShownStep[] {
  const v = body.shown;
  if (!Array.isArray(v) || v.length === 0 || v.length > 20 || !v.every((s) => s !== null && typeof s === "object" && typeof (s as ShownStep).transaction_id === "string" && typeof (s as ShownStep).preview_hash === "string")) {
    throw new Refusal(400, '"shown" must list the steps the page showed: [{"transaction_id", "preview_hash"}].');
  }
  return (v as ShownStep[]).map((s) => ({ transaction_id: s.transaction_id, preview_hash: s.preview_hash }));
}

/** Every pending plan in full (what the list shows: planner, client, intent). */
function pendingPlans(c: ConsoleContext): ShowResult[] {
  return pending(c.deps).plans.flatMap((p) => {
    try {
      return [show(c.deps, p.plan_id, CONSOLE_CALLER)];
    } catch {
      return [];
    }
  });
}

/** The passkey backend, or 503 saying how to approve instead. */
function passkeys(c: ConsoleContext): NonNullable<ConsoleContext["opts"]["passkeys"]> {
  if (c.opts.passkeys === null) throw new Refusal(503, "Passkeys are not available in this daemon; approve with `hostgate approve` in a terminal.");
  return c.opts.passkeys;
}

/** Routes that need no session: static files, login, enrollment. Answers true when it handled the request. */
async function openRoutes(c: ConsoleContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const get = req.method === "GET" || req.method === "HEAD";
  if (get && path === "/static/console.css") { send(res, 200, "text/css; charset=utf-8", CONSOLE_CSS); return true; }
  if (get && path === "/static/console.js") { send(res, 200, "text/javascript; charset=utf-8", CONSOLE_JS); return true; }
  if (get && path === "/login") { sendHtml(res, 200, loginPage()); return true; }
  if (get && path === "/enroll") { sendHtml(res, 200, enrollPage()); return true; }
  if (req.method !== "POST") return false;
  if (path === "/login") {
    if (!c.login.take("login")) throw new Refusal(429, "Too many login attempts; wait a minute.");
    const body = await jsonBody(req);
    const by = c.book.consumeLink(field(body, "token", 256), "login");
    if (by === null) return linkRefused(c, "login", "This login link is unknown, used or expired: run `hostgate console` for a new one.");
    const s = c.book.open(by);
    try {
      await audit(c.deps.audit(), "console.login", actorOf(asConsole(by)), { session: s.ref, message: `console session ${s.ref} opened with a one-time login link` }, true);
    } catch (err) {
      c.book.close(s.id);
      throw err;
    }
    sendJson(res, 200, { ok: true }, { "set-cookie": sessionCookie(COOKIE, s.id, Math.ceil(c.opts.idleMs / 1000)) });
    return true;
  }
  if (path === "/enroll/options" || path === "/enroll/finish") {
    if (!c.login.take("enroll")) throw new Refusal(429, "Too many enrollment attempts; wait a minute.");
    const body = await jsonBody(req);
    if (path === "/enroll/options") {
      // The link is used up here, at its first use, and the ceremony is bound to this browser (an HttpOnly
      // SameSite=Strict cookie): whoever else holds the link gets "used" (issue 23, newcomer trial).
      // The options first: a refused name does not cost the link (an unused challenge only expires).
      const token = typeof body.token === "string" ? body.token : "";
      if (!c.book.linkValid(token, "enroll")) return linkRefused(c, "enroll", ENROLL_LINK_REFUSED);
      const options = await passkeys(c).enrollmentOptions(c.deps, c.rp, approverName(body));
      const started = c.book.startEnrollment(token);
      if (started === null) return linkRefused(c, "enroll", ENROLL_LINK_REFUSED);
      sendJson(res, 200, options, { "set-cookie": enrollCookie(started.continuation, Math.ceil((started.expires_at - c.deps.clock.now()) / 1000)) });
      return true;
    }
    const by = c.book.finishEnrollment(cookieValue(req.headers.cookie, ENROLL_COOKIE));
    if (by === null) return linkRefused(c, "enroll", "No enrollment was started in this browser, or it was used or expired: open a new link from `hostgate console enroll` and create the passkey there.");
    const input = { name: approverName(body), registration: body.registration as RegistrationResponseJSON, ...(body.existing_assertion === undefined ? {} : { existing_assertion: body.existing_assertion as AuthenticationResponseJSON }) };
    if (input.registration === null || typeof input.registration !== "object") throw new Refusal(400, '"registration" must be the browser\'s registration response.');
    sendJson(res, 200, await passkeys(c).enrollmentFinish(c.deps, c.rp, input, asConsole(by)), { "set-cookie": enrollCookie("", 0) });
    return true;
  }
  return false;
}

/** Routes behind a session. */
async function sessionRoutes(c: ConsoleContext, req: IncomingMessage, res: ServerResponse, url: URL, s: Session): Promise<void> {
  const path = url.pathname;
  const get = req.method === "GET" || req.method === "HEAD";
  const now = c.deps.clock.now();
  const plan = /^\/plans\/([0-9A-Za-z-]{8,64})(\/approve\/options|\/approve|\/reject)?$/.exec(path);
  const confirmPath = /^\/transactions\/([0-9a-f-]{36})\/confirm$/.exec(path);
  if (get && path === "/") {
    const done = url.searchParams.get("confirmed");
    const notice = done === null ? null : `Confirmed ${done}: the change is kept.`;
    sendHtml(res, 200, pendingPage(pendingPlans(c), now, { waiting: awaitingConfirm(c.deps), csrf: s.csrf, notice }));
    return;
  }
  if (confirmPath && get) { sendHtml(res, 405, messagePage("Not allowed", "Confirming happens only by the page's Confirm button (POST); this GET changed nothing."), { allow: "POST" }); return; }
  if (get && path === "/history") { sendHtml(res, 200, historyPage(history(c.deps, { limit: 100 }))); return; }
  if (get && path === "/audit") { sendHtml(res, 200, auditPage(await c.deps.audit().verify(), checkpointRef(c.deps.audit()))); return; }
  if (get && path === "/separation") {
    const keys = c.opts.passkeys === null ? null : c.opts.passkeys.listPasskeys(c.deps).map((p) => ({ name: p.name, anchor_uid: anchorOf(c.deps, p.credential_id).uid, created_at: p.created_at, enrolled_by: p.enrolled_by, credential_id: p.credential_id }));
    sendHtml(res, 200, separationPage({ mode: c.opts.mode, daemon_uid: Number(c.deps.facts.daemon_uid ?? -1), same_user: c.deps.approval.same_user, passkeys: keys }));
    return;
  }
  if (plan && get) {
    if (plan[2] !== undefined) { sendHtml(res, 405, messagePage("Not allowed", "Approving and rejecting happen only by the page's buttons (POST); this GET changed nothing."), { allow: "POST" }); return; }
    const shown = show(c.deps, plan[1]!, CONSOLE_CALLER);
    sendHtml(res, 200, planPage(shown, { csrf: s.csrf, passkeys: c.opts.passkeys !== null, approver: c.deps.approver, notice: url.searchParams.get("done") === "rejected" ? "Rejected: no step of this plan can run." : null, now }));
    return;
  }
  if (req.method !== "POST") { sendHtml(res, 404, messagePage("Not found", "No such page.")); return; }
  if (confirmPath) {
    const form = await formBody(req);
    if (!c.book.csrfValid(s, form.get("csrf") ?? undefined)) { sendHtml(res, 403, messagePage("Refused", "The form's CSRF token is missing or wrong; nothing changed. Reload the page and try again.")); return; }
    const r = await confirm(c.deps, confirmPath[1]!, asConsole(s.by), "console");
    redirect(res, `/?confirmed=${encodeURIComponent(r.transaction_id)}`);
    return;
  }
  if (path === "/logout" || (plan && plan[2] === "/reject")) {
    const form = await formBody(req);
    if (!c.book.csrfValid(s, form.get("csrf") ?? undefined)) { sendHtml(res, 403, messagePage("Refused", "The form's CSRF token is missing or wrong; nothing changed. Reload the page and try again.")); return; }
    if (path === "/logout") {
      c.book.close(s.id);
      await audit(c.deps.audit(), "console.logout", actorOf(asConsole(s.by)), { session: s.ref, message: `console session ${s.ref} logged out` }).catch(() => undefined);
      redirect(res, "/login", { "set-cookie": sessionCookie(COOKIE, "", 0) });
      return;
    }
    const full = show(c.deps, plan![1]!, CONSOLE_CALLER).plan_id;
    await reject(c.deps, full, asConsole(s.by));
    redirect(res, `/plans/${encodeURIComponent(full)}?done=rejected`);
    return;
  }
  if (plan && (plan[2] === "/approve/options" || plan[2] === "/approve")) {
    if (!c.book.csrfValid(s, req.headers["x-csrf-token"] as string | undefined)) throw new Refusal(403, "The CSRF token is missing or wrong; nothing changed. Reload the page.");
    if (!c.approve.take("approve")) throw new Refusal(429, "Too many approval attempts; wait a minute.");
    const backend = passkeys(c);
    const body = await jsonBody(req);
    const full = show(c.deps, plan[1]!, CONSOLE_CALLER).plan_id;
    if (plan[2] === "/approve/options") { sendJson(res, 200, await backend.approvalOptions(c.deps, c.rp, full)); return; }
    const assertion = body.assertion;
    if (assertion === null || typeof assertion !== "object") throw new Refusal(400, '"assertion" must be the browser\'s passkey assertion.');
    const r = await backend.approveWithPasskey(c.deps, c.rp, full, shownSteps(body), assertion as AuthenticationResponseJSON, asConsole(s.by));
    sendJson(res, 200, { plan_id: r.plan_id, receipt: r.receipt, expires_at: r.expires_at, separation: r.separation, separation_facts: r.separation_facts, method: r.method, checkpoint: r.checkpoint });
    return;
  }
  sendHtml(res, 404, messagePage("Not found", "No such page."));
}

/** Handles one request that passed the Host check. */
export async function handleRoute(c: ConsoleContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const json = req.method === "POST" && (req.headers["content-type"] ?? "").startsWith("application/json");
  try {
    if (req.method === "POST" && !sameOrigin(req, c.port)) throw new Refusal(403, "Cross-origin request refused: the console accepts posts only from its own pages.");
    if (!["GET", "HEAD", "POST"].includes(req.method ?? "")) throw new Refusal(405, "Only GET and POST.");
    if (await openRoutes(c, req, res, url.pathname)) return;
    const s = c.book.touch(cookieValue(req.headers.cookie, COOKIE));
    if (s === null) {
      if (req.method === "GET" || req.method === "HEAD") sendHtml(res, 401, messagePage("Log in", "Run `hostgate console` on this machine for a one-time login link.", false));
      else throw new Refusal(401, "No session: run `hostgate console` for a one-time login link.");
      return;
    }
    await sessionRoutes(c, req, res, url, s);
  } catch (err) {
    const status = err instanceof Refusal ? err.status : err instanceof HostgateError ? statusOf(err) : null;
    if (status === null) throw err;
    const message = err instanceof HostgateError ? say(err) : (err as Error).message;
    if (json || req.method !== "POST") {
      if (json) sendJson(res, status, { error: message, ...(err instanceof HostgateError ? { code: err.code } : {}) });
      else sendHtml(res, status, messagePage(status === 404 ? "Not found" : "Refused", message));
    } else sendHtml(res, status, messagePage("Refused", message));
  }
}
