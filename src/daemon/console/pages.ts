/**
 * The console's pages (issue 23), rendered from the daemon's own answers (app/approve.ts `show`/`pending`,
 * app/history.ts, the audit store's verify). Pure functions of their data: every string from a plan, a host or
 * a client is untrusted and goes through core/console/html.ts (escaped, control and bidi characters made
 * visible as on the terminal screen).
 */
import { renderPreviewText } from "../../core/console/diff.ts";
import { h, raw, type Raw } from "../../core/console/html.ts";
import type { VerifyResult } from "../../core/audit/verify.ts";
import type { HistoryResult, ShowResult, ShowStep } from "../../ipc/protocol.ts";
import type { AwaitingConfirm } from "../../app/revert.ts";
import { age, csrfField, page, riskBadge } from "./layout.ts";
import { OWN_SOCKET_APPROVER, type Approver } from "../../core/approver.ts";

/** What the pending page shows beside the plans: applied steps waiting for a confirm, the session's CSRF token, a notice. */
export interface PendingPageOptions {
  waiting: readonly AwaitingConfirm[];
  csrf: string;
  /** A message to show once (after a confirm), or null. */
  notice: string | null;
}

/**
 * Applied steps that revert unless confirmed (issue 24), each with its countdown (from the daemon's clock) and a
 * Confirm button: a POST form with the session's CSRF token.
 */
function confirmSection(waiting: readonly AwaitingConfirm[], csrf: string, now: number): Raw {
  if (waiting.length === 0) return raw("");
  const rows = waiting.map((w) => {
    const deadline = new Date(w.deadline).toISOString();
    return h`<tr><td class="mono">${w.transaction_id}</td><td>${w.host}</td><td>${w.action_name}</td><td>${w.summary}</td><td><time datetime="${deadline}" data-countdown="${String(Math.max(0, Math.round((w.deadline - now) / 1000)))}">${deadline}</time></td><td><form class="inline confirm" method="post" action="/transactions/${encodeURIComponent(w.transaction_id)}/confirm">${csrfField(csrf)}<button type="submit" class="approve" aria-label="Confirm ${w.action_name} on ${w.host} (${w.transaction_id})">Confirm</button></form></td></tr>`;
  });
  return h`<section aria-labelledby="confirm-h"><h2 id="confirm-h">Waiting for your confirmation</h2><p class="warn">These changes were applied and are restored automatically when their window ends unless you confirm that the host still works (and you can still reach it).</p><table><thead><tr><th scope="col">Transaction</th><th scope="col">Host</th><th scope="col">Action</th><th scope="col">Summary</th><th scope="col">Reverts in</th><th scope="col">Keep it</th></tr></thead><tbody>${rows}</tbody></table></section>`;
}

/** The pending list: one row per plan waiting for a human, after any applied step waiting for a confirm. */
export function pendingPage(plans: readonly ShowResult[], now: number, opts: PendingPageOptions = { waiting: [], csrf: "", notice: null }): string {
  const top = h`${opts.notice === null ? "" : h`<p class="ok" role="status">${opts.notice}</p>`}${confirmSection(opts.waiting, opts.csrf, now)}`;
  if (plans.length === 0) return page("Pending plans", h`${top}<p>No plan is waiting for approval.</p>`);
  const rows = plans.map((p) => {
    const hosts = [...new Set(p.steps.map((s) => s.host))];
    const who = p.planned_by;
    const summary = p.steps.map((s) => s.preview.summary).join("; ");
    return h`<tr><td><a href="/plans/${encodeURIComponent(p.plan_id)}" class="mono">${p.plan_id.slice(0, 8)}</a></td><td>${age(Date.parse(p.created_at), now)}</td><td>${hosts.join(", ")}</td><td>${riskBadge(p.risk_level)}</td><td>${summary}</td><td>${who.planner ?? "unknown"}</td><td>${who.client ?? "(unnamed)"}${who.uid === null ? "" : ` (uid ${who.uid})`}</td><td>${who.intent ?? "(explicit steps)"}</td></tr>`;
  });
  return page("Pending plans", h`${top}<table><caption class="muted">Client names are what the client said about itself (untrusted).</caption><thead><tr><th scope="col">Plan</th><th scope="col">Age</th><th scope="col">Host</th><th scope="col">Risk</th><th scope="col">Summary</th><th scope="col">Planner</th><th scope="col">Client</th><th scope="col">Intent</th></tr></thead><tbody>${rows}</tbody></table>`);
}

/** A RunCommand step's judgement (risk signals, policy decision and reasons), when its preview carries one. */
function judgement(step: ShowStep): Raw {
  const i = step.preview.intended as { signals?: unknown; reasons?: unknown; decision?: unknown; risk_level?: unknown } | undefined;
  if (!i || typeof i !== "object") return raw("");
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => (typeof x === "string" ? x : JSON.stringify(x))) : []);
  const signals = list(i.signals);
  const reasons = list(i.reasons);
  if (signals.length === 0 && reasons.length === 0 && typeof i.risk_level !== "string") return raw("");
  return h`<dl>${typeof i.risk_level === "string" ? h`<dt>Command risk</dt><dd>${riskBadge(i.risk_level)} (the risk engine's rating of this command line)</dd>` : ""}<dt>Risk signals</dt><dd>${signals.length === 0 ? "none" : h`<ul>${signals.map((s) => h`<li><code>${s}</code></li>`)}</ul>`}</dd><dt>Policy</dt><dd>${typeof i.decision === "string" ? i.decision : "(no decision recorded)"}${reasons.length === 0 ? "" : h`<ul>${reasons.map((r) => h`<li>${r}</li>`)}</ul>`}</dd></dl>`;
}

/** One step: host, action, params, risks, state, hash, warnings and the exact preview (a diff rendered as one). */
function stepSection(step: ShowStep, n: number): Raw {
  const warnings = step.preview.warnings ?? [];
  // Most previews open with their summary line: show it once, in the preview, where the terminal shows it too.
  const summaryShown = step.preview.text.split("\n", 1)[0] === step.preview.summary;
  return h`<section aria-labelledby="step-${step.seq}"><h2 id="step-${step.seq}">Step ${step.seq} of ${n}: ${step.action_name} on ${step.host}</h2>
<dl><dt>Transaction</dt><dd class="mono">${step.transaction_id}</dd><dt>Action risk</dt><dd>${riskBadge(step.risk_level)} (the catalogue's level for ${step.action_name})</dd><dt>State</dt><dd data-state="">${step.state}</dd><dt>Parameters</dt><dd><code>${JSON.stringify(step.params)}</code></dd><dt>Preview hash</dt><dd class="mono">${step.preview_hash}</dd>${summaryShown ? "" : h`<dt>Summary</dt><dd>${step.preview.summary}</dd>`}</dl>
${warnings.length === 0 ? "" : h`<div class="warn" role="note"><strong>Warnings</strong><ul>${warnings.map((w) => h`<li>${w}</li>`)}</ul></div>`}
${judgement(step)}
${renderPreviewText(step.preview.text)}</section>`;
}

/** What the plan page needs beside the plan. */
export interface PlanPageOptions {
  csrf: string;
  /** Whether a passkey backend is wired (else approve says how to approve in a terminal). */
  passkeys: boolean;
  /** A message to show once (after a reject), or null. */
  notice: string | null;
  /** The daemon's clock (ms): the countdown starts from the daemon's idea of the time left, not the browser's clock. */
  now: number;
  /** Who approves in a terminal and how (core/approver.ts: `sudo hostgate approve` on the system daemon); absent: plain. */
  approver?: Approver | undefined;
}

/** How to approve in a terminal when passkeys are not wired: the approver's command, with the group's sudo alternative. */
function terminalApproval(planId: string, a: Approver): Raw {
  const alt = a.group === null ? "" : h` as a member of group ${a.group} (else <code>sudo hostgate approve ${planId}</code>)`;
  return h`<p class="muted">Passkey approval is not available in this daemon: approve in a terminal with <code>${a.command} ${planId}</code>${alt}.</p>`;
}

/** One plan: its facts, every step in full, an expiry countdown, and approve / reject while every step is planned. */
export function planPage(plan: ShowResult, opts: PlanPageOptions): string {
  const n = plan.steps.length;
  const who = plan.planned_by;
  const open = plan.steps.every((s) => s.state === "planned");
  const expires = plan.steps.map((s) => s.expires_at).sort()[0]!;
  const shown = JSON.stringify(plan.steps.map((s) => ({ transaction_id: s.transaction_id, preview_hash: s.preview_hash })));
  const path = `/plans/${encodeURIComponent(plan.plan_id)}`;
  const actions = !open
    ? h`<p class="muted">This plan cannot be approved or rejected: its steps are ${[...new Set(plan.steps.map((s) => s.state))].join(", ")}.</p>`
    : h`<div class="actions">${opts.passkeys
      ? h`<form id="approve" class="inline" method="post" action="${path}/approve" data-steps="${shown}">${csrfField(opts.csrf)}<button type="submit" class="approve">Approve with passkey</button></form>`
      : terminalApproval(plan.plan_id, opts.approver ?? OWN_SOCKET_APPROVER)}
<form class="inline" method="post" action="${path}/reject">${csrfField(opts.csrf)}<button type="submit" class="reject">Reject</button></form></div><div id="result" role="status" aria-live="polite"></div>`;
  return page(`Plan ${plan.plan_id.slice(0, 8)}`, h`${opts.notice === null ? "" : h`<p class="ok" role="status">${opts.notice}</p>`}
<dl><dt>Plan</dt><dd class="mono">${plan.plan_id}</dd><dt>Risk</dt><dd>${riskBadge(plan.risk_level)} (${n === 1 ? "the step's" : "the highest of its steps"})</dd>
<dt>Planned by</dt><dd>${who.client === null ? "an unnamed client" : `client "${who.client}" (its own claim)`}${who.uid === null ? "" : ` as uid ${who.uid}`}, planner ${who.planner ?? "unknown"}, at ${plan.created_at}</dd>
<dt>Intent</dt><dd>${who.intent ?? "(none: explicit steps)"}</dd>
<dt>Expires</dt><dd><time datetime="${expires}" data-countdown="${String(Math.max(0, Math.round((Date.parse(expires) - opts.now) / 1000)))}">${expires}</time></dd></dl>
${n > 1 ? h`<p>One approval covers all ${n} steps; they run in this order, each only after the one before it succeeded.</p>` : ""}
${actions}
${plan.steps.map((s) => stepSection(s, n))}`);
}

/** Recent audit entries with their outcomes. */
export function historyPage(history: HistoryResult): string {
  if (history.entries.length === 0) return page("History", h`<p>No audit entries yet.</p>`);
  const rows = history.entries.map((e) => {
    const who = e.actor.raw ?? `${e.actor.label ?? ""}${e.actor.client ? ` client "${e.actor.client}"` : ""}${e.actor.uid === undefined ? "" : ` uid ${e.actor.uid}`}`;
    return h`<tr><td>${e.seq}</td><td>${e.time}</td><td>${e.kind}</td><td>${e.host}</td><td>${e.action ?? ""}</td><td>${e.status ?? ""}</td><td>${e.separation ?? ""}</td><td>${who}</td><td>${e.detail ?? ""}</td></tr>`;
  });
  return page("History", h`<table><thead><tr><th scope="col">Seq</th><th scope="col">Time</th><th scope="col">Kind</th><th scope="col">Host</th><th scope="col">Action</th><th scope="col">Outcome</th><th scope="col">Separation</th><th scope="col">Who</th><th scope="col">Detail</th></tr></thead><tbody>${rows}</tbody></table>`);
}

/** The audit chain's verify result and head. */
export function auditPage(result: VerifyResult, head: { seq: number; hash: string } | null): string {
  const cls = result.status === "intact" ? "ok" : result.status === "unanchored" ? "warn" : "bad";
  const detail = "detail" in result ? result.detail : `${result.checked} entries checked, up to seq ${result.last_seq}.`;
  return page("Audit chain", h`<p class="${cls}" role="status">Verify result: <strong>${result.status}</strong>. ${detail}</p>
<dl><dt>Chain head</dt><dd class="mono">${head === null ? "(no checkpoint yet)" : `${head.seq}:${head.hash}`}</dd></dl>
<p>Keep the head off this host: <code>hostgate audit verify --witness SEQ:HASH</code> later proves the record was not cut below it.</p>`);
}

/** The facts the separation page states. */
export interface SeparationFacts {
  mode: "embedded" | "system";
  daemon_uid: number;
  same_user: "allow" | "deny";
  /**
   * The active passkeys with the uid that minted each one's enrollment link (null: not recorded), when they were
   * enrolled (ISO 8601) and by whom per the audit chain (null: no `passkey.enrolled` entry), or null without passkeys.
   */
  passkeys: { name: string; anchor_uid: number | null; created_at?: string; enrolled_by?: string | null; credential_id?: string }[] | null;
}

/** The passkeys and what their approvals prove here (core/approval-proof.ts passkeySeparation). */
function passkeyFacts(f: SeparationFacts): Raw {
  if (f.passkeys === null) return h`<p>Passkeys are not available in this daemon.</p>`;
  const rule = f.mode === "embedded"
    ? h`<p>A passkey approval here is recorded as <strong>convenience, same user</strong> (separation <code>none</code>): it proves a touch on an enrolled authenticator, not a second person.</p>`
    : h`<p>A passkey approval here is recorded <strong>separated</strong> when the passkey's enrollment link was minted on the admin socket by a uid other than the assistant's that planned (root counts, unless the assistant runs as root); otherwise <code>none</code>, with the reason. <code>hostgate audit verify</code> checks each approval's claim against the enrollment entry.</p>`;
  if (f.passkeys.length === 0) return h`${rule}<p>No passkey is enrolled (<code>hostgate console enroll</code> prints an enrollment link).</p>`;
  const rows = f.passkeys.map((p) => h`<tr><td>${p.name}</td><td>${p.created_at ?? ""}</td><td>${p.enrolled_by === null ? "NOT IN THE AUDIT CHAIN" : p.enrolled_by ?? ""}</td><td>${p.anchor_uid === null ? "not recorded (approvals read none)" : `uid ${p.anchor_uid}`}</td><td class="mono">${p.credential_id ?? ""}</td></tr>`);
  return h`${rule}<table><caption>Enrolled passkeys (${String(f.passkeys.length)}): one you did not make? <code>hostgate console revoke CREDENTIAL</code></caption><thead><tr><th scope="col">Name</th><th scope="col">Enrolled</th><th scope="col">By (audit chain)</th><th scope="col">Enrollment link minted by</th><th scope="col">Credential</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** What separation the current setup gives, in words (issue 23). */
export function separationPage(f: SeparationFacts): string {
  const body = f.mode === "embedded"
    ? h`<p class="warn"><strong>Convenience, same user.</strong> This console is served by the embedded daemon, which runs inside an MCP front as uid ${f.daemon_uid}: the same user as the assistant. Approvals here are recorded with separation <code>none</code>. An assistant running as this user could read the daemon's state; a passkey still needs a human's touch and verification, but the enrollment is anchored where this user can write.</p>
<p>For separated approvals run <code>hostgate daemon</code> as a system service (<code>sudo hostgate daemon install</code>): its state and enrollment live where the assistant's uid cannot write.</p>`
    : h`<p class="ok"><strong>Separated.</strong> This console is served by the system daemon (uid ${f.daemon_uid}). Its state, audit chain and passkey enrollment are kept where an assistant running as another uid cannot write; enrollment needs a one-time link from the admin socket. Same-user approvals: ${f.same_user === "deny" ? "refused" : "allowed, labelled separation none"}.</p>`;
  return page("Separation", h`${body}${passkeyFacts(f)}`);
}

/** The login landing page: its script posts the link's fragment secret. */
export function loginPage(): string {
  return page("Log in", h`<p id="login">Logging in with the one-time link…</p><p id="msg" role="status" aria-live="polite"></p><p class="muted">Links come from <code>hostgate console</code> and work once.</p>`, false);
}

/** The enrollment page: its script runs the WebAuthn registration with the link's fragment secret. */
export function enrollPage(): string {
  return page("Enroll a passkey", h`<form id="enroll" method="post" action="/enroll/finish"><label for="name">Approver name</label> <input id="name" name="name" required maxlength="64" autocomplete="name"> <button type="submit">Create passkey</button></form><div id="result" role="status" aria-live="polite"></div><p class="muted">Links come from <code>hostgate console enroll</code> and work once.</p>`, false);
}

/** Any refusal or missing page, as a page. */
export function messagePage(title: string, message: string, nav = true): string {
  return page(title, h`<p class="bad" role="alert">${message}</p>`, nav);
}
