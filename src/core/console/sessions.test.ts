import { describe, expect, it } from "vitest";
import { LINK_TTL_MS, RateLimiter, SESSION_MAX_MS, SessionBook } from "./sessions.ts";
import type { Caller } from "../caller.ts";

const alice: Caller = { role: "admin", socket: "admin", peer: { uid: 1001, gid: 1001, pid: 42 }, client_name: null, label: "admin" };
const root: Caller = { ...alice, peer: { uid: 0, gid: 0, pid: 43 } };

function book(idleMs = 60_000) {
  let now = 1_000_000;
  let n = 0;
  const b = new SessionBook({ now: () => now, random: () => `secret-${++n}`, sha256Hex: (t) => `h(${t})`, equals: (a, c) => a === c }, idleMs);
  return { b, advance: (ms: number) => { now += ms; } };
}

describe("console sessions", () => {
  it("a link works once, only for its purpose, and not after LINK_TTL_MS", () => {
    const { b, advance } = book();
    const login = b.mintLink("login", alice);
    expect(login.secret).toMatch(/^hgl_secret-\d+$/); // the redactor's `hgl_` form (core/redact/rules.ts)
    expect(b.consumeLink(login.secret, "enroll")).toBeNull();
    expect(b.linkValid(login.secret, "login")).toBe(true);
    expect(b.consumeLink(login.secret, "login")).toBe(alice);
    expect(b.consumeLink(login.secret, "login")).toBeNull();
    const late = b.mintLink("enroll", root);
    advance(LINK_TTL_MS);
    expect(b.consumeLink(late.secret, "enroll")).toBeNull();
    expect(b.consumeLink("", "login")).toBeNull();
  });

  it("a link remembers who minted it; the session it opens acts as them, with a ref that is not its cookie", () => {
    const { b } = book();
    const l1 = b.mintLink("login", alice);
    const l2 = b.mintLink("login", root);
    expect(b.consumeLink(l2.secret, "login")).toBe(root);
    const s = b.open(b.consumeLink(l1.secret, "login")!);
    expect(s.by.peer?.uid).toBe(1001);
    expect(s.ref).not.toBe(s.id);
    expect(s.ref).not.toBe(s.csrf);
  });

  it("a session lives while used, ends after its idle time or SESSION_MAX_MS, and checks its CSRF token", () => {
    const { b, advance } = book(60_000);
    const s = b.open(alice);
    expect(s.id).not.toBe(s.csrf);
    advance(59_000);
    expect(b.touch(s.id)?.id).toBe(s.id);
    advance(59_000);
    expect(b.touch(s.id)?.id).toBe(s.id);
    expect(b.csrfValid(s, s.csrf)).toBe(true);
    expect(b.csrfValid(s, undefined)).toBe(false);
    expect(b.csrfValid(s, "")).toBe(false);
    expect(b.csrfValid(s, "other")).toBe(false);
    advance(60_001);
    expect(b.touch(s.id)).toBeNull();
    const long = book(SESSION_MAX_MS * 2);
    const t = long.b.open(alice);
    long.advance(SESSION_MAX_MS + 1);
    expect(long.b.touch(t.id)).toBeNull();
    expect(b.touch(undefined)).toBeNull();
  });

  it("logout ends the session", () => {
    const { b } = book();
    const s = b.open(alice);
    b.close(s.id);
    expect(b.touch(s.id)).toBeNull();
  });

  it("the rate limiter allows `limit` per window per key", () => {
    let now = 0;
    const r = new RateLimiter(2, 1000, () => now);
    expect([r.take("a"), r.take("a"), r.take("a"), r.take("b")]).toEqual([true, true, false, true]);
    now = 1000;
    expect(r.take("a")).toBe(true);
  });

  it("T23-enroll-link-first-use: an enrollment link is used up when its ceremony starts; only the continuation finishes it, once", () => {
    const { b, advance } = book();
    const link = b.mintLink("enroll", alice);
    const first = b.startEnrollment(link.secret)!;
    expect(first.by).toBe(alice);
    expect(b.startEnrollment(link.secret)).toBeNull(); // a second party with the same link gets nothing
    expect(b.linkValid(link.secret, "enroll")).toBe(false);
    expect(b.finishEnrollment(link.secret)).toBeNull(); // the link itself does not finish a ceremony
    expect(b.finishEnrollment(undefined)).toBeNull();
    expect(b.finishEnrollment(first.continuation)).toBe(alice);
    expect(b.finishEnrollment(first.continuation)).toBeNull();
    const late = b.startEnrollment(b.mintLink("enroll", alice).secret)!;
    advance(LINK_TTL_MS);
    expect(b.finishEnrollment(late.continuation)).toBeNull();
    expect(b.startEnrollment(b.mintLink("login", alice).secret)).toBeNull();
  });
});
