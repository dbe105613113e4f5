/**
 * Who may use the approval console (issue 23), pure: no I/O; randomness, hashing and time are passed in.
 * - One-time links: a secret minted over the admin socket (`hostgate console`, `hostgate console enroll`),
 *   kept only as its hash, valid {@link LINK_TTL_MS}, consumed by its first use (an enrollment link when its
 *   ceremony starts: {@link SessionBook.startEnrollment}).
 * - Sessions: a random id (the HttpOnly cookie) with its own CSRF token, ended after `idleMs` without a
 *   request (default {@link SESSION_IDLE_MS}) and never living longer than {@link SESSION_MAX_MS}.
 * - Rate limits: a fixed window per key ({@link RateLimiter}).
 * Every link remembers who minted it (the admin-socket caller, with its kernel uid), and the session a login
 * link opens acts as that caller: console entries in the audit chain name that uid (issue 23). A session also
 * has a `ref`, a short random label for the audit chain that is neither the cookie nor derived from it.
 */
import type { Caller } from "../caller.ts";

/** A one-time link's life, milliseconds (5 minutes). */
export const LINK_TTL_MS = 5 * 60_000;
/** Idle expiry of a console session, milliseconds (10 minutes), unless configured. */
export const SESSION_IDLE_MS = 10 * 60_000;
/** Longest life of a session whatever its activity, milliseconds (8 hours). */
export const SESSION_MAX_MS = 8 * 3_600_000;
/** Bytes of randomness in link secrets, session ids and CSRF tokens (256 bits). */
export const SECRET_BYTES = 32;
/**
 * The prefix of every one-time link secret (`hgl_` + 43 base64url characters): the redactor knows the form
 * anywhere it appears (core/redact/rules.ts `console_link`), not only after `/login#` or `/enroll#`.
 */
export const LINK_SECRET_PREFIX = "hgl_";

/** What the book needs from outside: time (ms), random base64url strings, a hash and a constant-time compare. */
export interface SessionDeps {
  now(): number;
  random(bytes: number): string;
  sha256Hex(text: string): string;
  equals(a: string, b: string): boolean;
}

/** What a one-time link is for. */
export type LinkPurpose = "login" | "enroll";

/** One live session. */
export interface Session {
  id: string;
  csrf: string;
  /** Who minted the login link that opened it (the admin-socket caller). */
  by: Caller;
  /** A short random label naming the session in the audit chain (not the cookie, not derived from it). */
  ref: string;
  created_at: number;
  last_seen: number;
}

/** Links, sessions and their expiry (see the module comment). */
export class SessionBook {
  private readonly links = new Map<string, { purpose: LinkPurpose; expires_at: number; by: Caller }>();
  private readonly sessions = new Map<string, Session>();
  private readonly ceremonies = new Map<string, { expires_at: number; by: Caller }>();

  constructor(private readonly d: SessionDeps, private readonly idleMs = SESSION_IDLE_MS) {}

  /** Mints a one-time link secret for `purpose`, minted by `by`; only the secret's hash is kept. */
  mintLink(purpose: LinkPurpose, by: Caller): { secret: string; expires_at: number } {
    this.prune();
    const secret = `${LINK_SECRET_PREFIX}${this.d.random(SECRET_BYTES)}`;
    const expires_at = this.d.now() + LINK_TTL_MS;
    this.links.set(this.d.sha256Hex(secret), { purpose, expires_at, by });
    return { secret, expires_at };
  }

  /** Whether `secret` is a live link for `purpose`, without using it up (enrollment checks it before its ceremony ends). */
  linkValid(secret: string, purpose: LinkPurpose): boolean {
    const l = this.links.get(this.d.sha256Hex(secret));
    return l !== undefined && l.purpose === purpose && l.expires_at > this.d.now();
  }

  /**
   * Uses up a live link for `purpose`: who minted it, once; null ever after (or when unknown, expired or for the
   * other purpose).
   */
  consumeLink(secret: string, purpose: LinkPurpose): Caller | null {
    if (!this.linkValid(secret, purpose)) return null;
    const key = this.d.sha256Hex(secret);
    const link = this.links.get(key)!;
    this.links.delete(key);
    return link.by;
  }

  /**
   * Starts a passkey enrollment with an enrollment link (issue 23, newcomer trial: a link that lived until
   * /enroll/finish let whoever else held it race the human): the link is used up here, at its first use, and the
   * ceremony continues only with the returned `continuation` secret (the console keeps it in an HttpOnly
   * SameSite=Strict cookie of that browser), valid {@link LINK_TTL_MS}. Null when the link is unknown, used,
   * expired or a login link: a second party using the same link gets nothing.
   */
  startEnrollment(secret: string): { continuation: string; by: Caller; expires_at: number } | null {
    const by = this.consumeLink(secret, "enroll");
    if (by === null) return null;
    const continuation = this.d.random(SECRET_BYTES);
    const expires_at = this.d.now() + LINK_TTL_MS;
    this.ceremonies.set(this.d.sha256Hex(continuation), { expires_at, by });
    return { continuation, by, expires_at };
  }

  /** Ends the enrollment `continuation` belongs to: who minted its link, once; null when unknown, used or expired. */
  finishEnrollment(continuation: string | undefined): Caller | null {
    if (continuation === undefined || continuation === "") return null;
    const key = this.d.sha256Hex(continuation);
    const c = this.ceremonies.get(key);
    if (!c) return null;
    this.ceremonies.delete(key);
    return c.expires_at > this.d.now() ? c.by : null;
  }

  /** A new session acting as `by` (who minted the login link just consumed). */
  open(by: Caller): Session {
    const now = this.d.now();
    const s: Session = { id: this.d.random(SECRET_BYTES), csrf: this.d.random(SECRET_BYTES), by, ref: this.d.random(6), created_at: now, last_seen: now };
    this.sessions.set(this.d.sha256Hex(s.id), s);
    return s;
  }

  /** The live session of a cookie value, its idle clock restarted; null when unknown or expired (then forgotten). */
  touch(id: string | undefined): Session | null {
    if (id === undefined || id === "") return null;
    const key = this.d.sha256Hex(id);
    const s = this.sessions.get(key);
    if (!s) return null;
    const now = this.d.now();
    if (now - s.last_seen > this.idleMs || now - s.created_at > SESSION_MAX_MS) {
      this.sessions.delete(key);
      return null;
    }
    s.last_seen = now;
    return s;
  }

  /** Whether a presented CSRF token is the session's (constant time). */
  csrfValid(s: Session, presented: string | undefined): boolean {
    return presented !== undefined && presented !== "" && this.d.equals(presented, s.csrf);
  }

  /** Ends a session (logout). */
  close(id: string): void {
    this.sessions.delete(this.d.sha256Hex(id));
  }

  private prune(): void {
    const now = this.d.now();
    for (const [k, l] of this.links) if (l.expires_at <= now) this.links.delete(k);
    for (const [k, c] of this.ceremonies) if (c.expires_at <= now) this.ceremonies.delete(k);
    for (const [k, s] of this.sessions) if (now - s.last_seen > this.idleMs) this.sessions.delete(k);
  }
}

/** At most `limit` events per `windowMs` per key (a fixed window); `take` answers whether one more is allowed. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limit: number, private readonly windowMs: number, private readonly now: () => number) {}

  /** Counts one event for `key`; false when the window's limit is already reached. */
  take(key: string): boolean {
    const now = this.now();
    const w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      this.windows.set(key, { start: now, count: 1 });
      return true;
    }
    if (w.count >= this.limit) return false;
    w.count++;
    return true;
  }
}
