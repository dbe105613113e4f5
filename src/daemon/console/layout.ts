/**
 * The frame of every console page: one stylesheet and one script from /static/ (no inline script or style:
 * the CSP forbids them), a navigation, a main landmark with one h1. Untrusted text goes only through
 * core/console/html.ts `h`.
 */
import { h, raw, type Raw } from "../../core/console/html.ts";
import { RISK_LEVELS } from "../../core/risk-level.ts";

/** A whole page: `title` (text) and its body (markup built with `h`). `nav`: false on pages before a login. */
export function page(title: string, body: Raw, nav = true): string {
  const links = nav ? h`<nav aria-label="Console"><a href="/">Pending</a><a href="/history">History</a><a href="/audit">Audit</a><a href="/separation">Separation</a></nav>` : raw("");
  return `<!doctype html>\n${h`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><title>${title} · hostgate</title><link rel="stylesheet" href="/static/console.css"><script src="/static/console.js" defer></script></head><body><header><strong>hostgate approval console</strong> ${links}</header><main><h1>${title}</h1>${body}</main></body></html>`.html}`;
}

/** A risk level as a labelled badge. */
export function riskBadge(level: string): Raw {
  const known = (RISK_LEVELS as readonly string[]).includes(level) ? level : "high";
  return h`<span class="risk risk-${known}">${level.toUpperCase()}</span>`;
}

/** A hidden CSRF field for a form. */
export function csrfField(csrf: string): Raw {
  return h`<input type="hidden" name="csrf" value="${csrf}">`;
}

/** "3 min ago" from two times in ms. */
export function age(fromMs: number, nowMs: number): string {
  const s = Math.max(0, Math.round((nowMs - fromMs) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86_400)} days ago`;
}
