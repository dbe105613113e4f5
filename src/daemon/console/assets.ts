/**
 * The console's stylesheet and script, served by the daemon from memory at /static/ (no build step, no
 * third-party origin: the page works offline). The script is the only JavaScript the console runs (its CSP
 * allows 'self' scripts only, never inline): the login and enrollment links' fragment secrets, the expiry
 * countdowns, and the WebAuthn calls, through the browser's own JSON helpers
 * (PublicKeyCredential.parseCreationOptionsFromJSON / parseRequestOptionsFromJSON and credential.toJSON()).
 */

/** /static/console.css */
export const CONSOLE_CSS = `
:root { color-scheme: light; --fg: #1a1a1a; --muted: #4a4a4a; --bg: #ffffff; --line: #c8c8c8; --accent: #0b57d0; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { background: #14213d; color: #fff; padding: .5rem 1rem; }
header a { color: #fff; margin-right: 1rem; }
main { padding: 1rem; max-width: 72rem; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); text-align: left; padding: .35rem .5rem; vertical-align: top; }
code, pre, .mono { font-family: ui-monospace, monospace; }
pre.preview { background: #f6f6f6; border: 1px solid var(--line); padding: .5rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.ln.add { background: #dcfce7; color: #14532d; }
.ln.del { background: #fee2e2; color: #7f1d1d; }
.ln.hunk { color: #1e3a8a; font-weight: bold; }
.ln.file { color: #333; font-weight: bold; }
.risk { font-weight: bold; padding: 0 .3rem; border-radius: 3px; }
.risk-low { background: #e0f2e9; color: #14532d; }
.risk-medium { background: #fef3c7; color: #713f12; }
.risk-high { background: #fed7aa; color: #7c2d12; }
.risk-critical { background: #7f1d1d; color: #fff; }
.warn { background: #fff4e5; border-left: 4px solid #b45309; padding: .5rem; }
.ok { background: #e8f5e9; border-left: 4px solid #1b5e20; padding: .5rem; }
.bad { background: #fdecea; border-left: 4px solid #b71c1c; padding: .5rem; }
.muted { color: var(--muted); }
button { font: inherit; padding: .4rem 1rem; border-radius: 4px; border: 1px solid #333; cursor: pointer; }
button.approve { background: #14532d; color: #fff; }
button.reject { background: #fff; color: #7f1d1d; border-color: #7f1d1d; }
form.inline { display: inline-block; margin-right: 1rem; }
#receipt { font-size: 1.1rem; }
`;

/** /static/console.js */
export const CONSOLE_JS = `"use strict";
(function () {
  function $(sel) { return document.querySelector(sel); }
  function say(el, msg, cls) { if (!el) return; el.textContent = msg; el.className = cls || ""; }
  function fragmentSecret() {
    var s = location.hash.slice(1);
    if (s) history.replaceState(null, "", location.pathname);
    return s;
  }
  async function post(url, body, csrf) {
    var headers = { "content-type": "application/json" };
    if (csrf) headers["x-csrf-token"] = csrf;
    var r = await fetch(url, { method: "POST", headers: headers, body: JSON.stringify(body), credentials: "same-origin" });
    var data = null;
    try { data = await r.json(); } catch (e) { data = { error: "HTTP " + r.status }; }
    if (!r.ok) throw new Error(data && data.error ? data.error : "HTTP " + r.status);
    return data;
  }
  function webauthnReady() {
    if (!window.PublicKeyCredential || !PublicKeyCredential.parseRequestOptionsFromJSON) {
      throw new Error("This browser cannot make passkey assertions from JSON options; use a current Chromium, Firefox or Safari.");
    }
  }
  // The browser's own WebAuthn errors ("The operation either timed out or was not allowed. See: …") say nothing a
  // person can act on: a NotAllowedError becomes what it means here and what to do.
  function plainWebAuthnError(e, what) {
    if (e && (e.name === "NotAllowedError" || e.name === "AbortError")) return new Error(what);
    if (e && e.name === "InvalidStateError") return new Error("This authenticator already holds a passkey for this console: use it, or another authenticator.");
    return e;
  }
  var NOT_ENROLLED = "This passkey is not enrolled here, or you cancelled (or the prompt timed out). Use a passkey that hostgate console passkeys lists and press the button again; to add this one, run hostgate console enroll.";
  var NOT_CREATED = "No passkey was created: you cancelled, or the prompt timed out. Run hostgate console enroll for a new link (each link works once) and try again.";
  async function assert(options, what) {
    webauthnReady();
    try {
      var cred = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
      return cred.toJSON();
    } catch (e) { throw plainWebAuthnError(e, what || NOT_ENROLLED); }
  }
  async function create(options) {
    webauthnReady();
    try {
      var cred = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
      return cred.toJSON();
    } catch (e) { throw plainWebAuthnError(e, NOT_CREATED); }
  }

  // Expiry countdowns: <time data-countdown="SECONDS LEFT when the daemon rendered the page"> (the daemon's clock, not the browser's).
  var loaded = Date.now();
  function tick() {
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      var left = Number(el.getAttribute("data-countdown")) - Math.round((Date.now() - loaded) / 1000);
      el.textContent = left <= 0 ? "expired" : Math.floor(left / 60) + " min " + (left % 60) + " s left";
    });
  }
  tick();
  setInterval(tick, 1000);

  var login = $("#login");
  if (login) {
    var secret = fragmentSecret();
    if (!secret) say($("#msg"), "This page needs the one-time link printed by hostgate console.", "bad");
    else post("/login", { token: secret }).then(function () { location.replace("/"); }, function (e) { say($("#msg"), e.message, "bad"); });
  }

  var approve = $("#approve");
  if (approve) {
    approve.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var csrf = approve.querySelector("input[name=csrf]").value;
      var shown = JSON.parse(approve.getAttribute("data-steps"));
      var base = approve.getAttribute("action").replace(/\\/approve$/, "");
      var out = $("#result");
      say(out, "Waiting for your passkey…", "muted");
      (async function () {
        var o = await post(base + "/approve/options", {}, csrf);
        if (JSON.stringify(o.steps) !== JSON.stringify(shown)) throw new Error("The plan changed since this page was loaded; reload it and review it again.");
        var assertion = await assert(o.options);
        var r = await post(base + "/approve", { shown: shown, assertion: assertion }, csrf);
        // The page now shows the new state: steps approved, no buttons, the receipt and the separation label.
        var actions = approve.closest(".actions");
        if (actions) actions.hidden = true;
        document.querySelectorAll("[data-state]").forEach(function (el) { el.textContent = "approved"; });
        out.className = "ok";
        out.textContent = "Approved with your passkey. Give this receipt to the assistant as approval_receipt (it expires " + r.expires_at + "): ";
        var code = document.createElement("code");
        code.id = "receipt";
        code.textContent = r.receipt;
        out.appendChild(code);
        var sep = document.createElement("p");
        sep.id = "separation";
        sep.textContent = "Separation: " + String(r.separation).toUpperCase() + (r.separation_facts ? " (" + r.separation_facts + ")" : "");
        out.appendChild(sep);
      })().catch(function (e) { say(out, "Not approved: " + e.message, "bad"); });
    });
  }

  var enroll = $("#enroll");
  if (enroll) {
    var token = fragmentSecret();
    enroll.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var out = $("#result");
      var name = enroll.querySelector("input[name=name]").value;
      (async function () {
        if (!token) throw new Error("Enrollment needs the one-time link printed by hostgate console enroll.");
        var o = await post("/enroll/options", { token: token, name: name });
        var existing = o.existing ? await assert(o.existing, "An enrolled passkey must confirm a new one, and none did: you cancelled, the prompt timed out, or this authenticator holds no passkey enrolled here. Use one that hostgate console passkeys lists, with a new link from hostgate console enroll.") : undefined;
        var registration = await create(o.creation);
        var r = await post("/enroll/finish", { token: token, name: name, registration: registration, existing_assertion: existing });
        say(out, "Passkey " + r.name + " enrolled.", "ok");
      })().catch(function (e) { say(out, "Not enrolled: " + e.message, "bad"); });
    });
  }
})();
`;
