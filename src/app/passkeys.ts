import type { PasskeyAnchor, PasskeyProof } from "../core/approval-proof.ts";
import { actorOf, actorView, type Caller } from "../core/caller.ts";
import { HostgateError } from "../core/errors.ts";
import { approvalChallenge } from "../core/passkey-challenge.ts";
import type { ApproveResult } from "../ipc/protocol.ts";
import type { ChallengePurpose, PasskeyRecord } from "../ports/passkey-store.ts";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  RelyingParty,
} from "../ports/webauthn.ts";
import { approveWithProof, assertAllPlanned, loadPlan } from "./approve.ts";
import { audit } from "./audit-log.ts";
import type { DaemonDeps } from "./deps.ts";

export type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON, RelyingParty } from "../ports/webauthn.ts";

/**
 * Passkeys (issue 23): WebAuthn enrollment, passkey approvals, list and revoke. The HTTP console (c23b) calls
 * only these functions; it passes the relying party (`{ id: "localhost", origin: "http://localhost:<port>", name:
 * "hostgate" }`) and the browser's JSON. User verification is required in every ceremony. Every challenge the
 * daemon hands out is random or derived from a random nonce, stored (state.db), and usable once within
 * {@link CHALLENGE_TTL_MS}. Refusals are HostgateError `passkey_refused` (what is wrong and what to do).
 */

/** How long a handed-out challenge stays usable (ms). */
export const CHALLENGE_TTL_MS = 5 * 60_000;
/** Longest passkey name (characters). */
export const MAX_PASSKEY_NAME = 64;

const AGAIN = "Start again from the console page: it asks the authenticator for a new assertion.";

/**
 * Options for enrolling a passkey named `name`: `creation` for navigator.credentials.create, and `existing`
 * (non-null once any passkey is enrolled) for navigator.credentials.get: adding another passkey needs an
 * assertion from an enrolled one. Errors: `invalid_params` (bad name or relying party, name taken).
 */
export async function enrollmentOptions(deps: DaemonDeps, rp: RelyingParty, name: string): Promise<{ creation: PublicKeyCredentialCreationOptionsJSON; existing: PublicKeyCredentialRequestOptionsJSON | null }> {
  checkRp(rp);
  const store = deps.passkeys();
  const active = store.list();
  checkName(name, active);
  const now = deps.clock.now();
  const challenge = deps.crypto.randomBase64Url(32);
  store.putChallenge({ challenge, purpose: "enroll", plan_id: null, nonce: null, name, created_at: now, expires_at: now + CHALLENGE_TTL_MS });
  const creation = await deps.webauthn.registrationOptions(rp, { name, challenge, exclude: active.map(allowed) });
  if (active.length === 0) return { creation, existing: null };
  const vouch = deps.crypto.randomBase64Url(32);
  store.putChallenge({ challenge: vouch, purpose: "enroll_existing", plan_id: null, nonce: null, name, created_at: now, expires_at: now + CHALLENGE_TTL_MS });
  return { creation, existing: await deps.webauthn.authenticationOptions(rp, { challenge: vouch, allow: active.map(allowed) }) };
}

/**
 * Finishes an enrollment: the registration must answer a challenge from {@link enrollmentOptions} for this
 * `name` (unused, unexpired) with user verification; when a passkey is already enrolled, `existing_assertion`
 * must be a fresh, user-verified assertion of an active one. A `passkey.enrolled` audit entry with the credential
 * id, name, COSE public key (base64url) and its anchor is durable before the passkey is stored (fail closed).
 * `caller`: who minted the enrollment link on the admin socket (the console passes the link's minter); its kernel
 * uid is recorded as the enrollment's `anchor` (`{ uid, daemon }`), which decides what the passkey's approvals
 * prove (core/approval-proof.ts passkeySeparation).
 */
export async function enrollmentFinish(deps: DaemonDeps, rp: RelyingParty, input: { name: string; registration: RegistrationResponseJSON; existing_assertion?: AuthenticationResponseJSON }, caller: Caller): Promise<{ credential_id: string; name: string }> {
  checkRp(rp);
  const store = deps.passkeys();
  const active = store.list();
  checkName(input.name, active);
  const now = deps.clock.now();
  const challenge = challengeOf(input.registration.response.clientDataJSON);
  const row = store.findChallenge(challenge, "enroll", now);
  if (row === null || row.name !== input.name) throw refused(`This registration does not answer an enrollment challenge for ${JSON.stringify(input.name)} that is still open (unknown, already used or expired).`, "Open the enrollment link again (hostgate console enroll) and create the passkey there.");
  let vouchedBy: string | null = null;
  if (active.length > 0) {
    if (input.existing_assertion === undefined) {
      throw refused("A passkey is already enrolled: adding another needs an assertion from an enrolled passkey.", "Confirm with one of your enrolled passkeys when the page asks, then create the new one.");
    }
    vouchedBy = (await checkAssertion(deps, rp, input.existing_assertion, "enroll_existing", now)).credential_id;
  }
  let reg;
  try {
    reg = await deps.webauthn.verifyRegistration(rp, input.registration, challenge);
  } catch (err) {
    throw refused(`The registration does not verify: ${(err as Error).message}.`, "Create the passkey again with user verification (PIN or biometrics) on this page's origin.");
  }
  if (!reg.user_verified) throw refused("The authenticator did not verify the user (no PIN or biometrics).", "Use an authenticator with user verification.");
  if (store.get(reg.credential_id) !== null) throw new HostgateError("invalid_params", `Passkey ${reg.credential_id} is already enrolled (or was, and is revoked).`, { hint: "Create a new passkey on the authenticator." });
  if (!store.useChallenge(challenge, now)) throw refused("This enrollment challenge was used meanwhile.", AGAIN);
  await audit(deps.audit(), "passkey.enrolled", actorOf(caller), {
    credential_id: reg.credential_id, name: input.name, public_key: reg.public_key, rp_id: rp.id, origin: rp.origin, vouched_by: vouchedBy ?? undefined,
    anchor: { uid: caller.peer?.uid ?? null, socket: caller.socket, daemon: deps.approval.daemon_mode },
  }, true);
  store.add({ credential_id: reg.credential_id, name: input.name, public_key: reg.public_key, counter: reg.counter, transports: reg.transports, created_at: now });
  return { credential_id: reg.credential_id, name: input.name };
}

/**
 * Options for approving plan `planId` with a passkey: a challenge derived from the plan's (transaction_id,
 * preview_hash) list and a fresh daemon nonce (core/passkey-challenge.ts), held until used once, and the steps
 * the page must show. Errors: `unknown_transaction`, `transaction_closed` (a step not planned), `passkey_refused`
 * (no passkey enrolled).
 */
export async function approvalOptions(deps: DaemonDeps, rp: RelyingParty, planId: string): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; steps: { transaction_id: string; preview_hash: string }[] }> {
  checkRp(rp);
  const { planId: plan, steps } = loadPlan(deps, planId);
  const now = deps.clock.now();
  assertAllPlanned(plan, steps, now, "approved");
  const active = deps.passkeys().list();
  if (active.length === 0) throw refused("No passkey is enrolled, so nothing can approve with one.", "Enroll one first: hostgate console enroll.");
  const bound = steps.map((tx) => ({ transaction_id: tx.id, preview_hash: tx.preview_hash }));
  const nonce = deps.crypto.randomBase64Url(32);
  const challenge = approvalChallenge(plan, bound, nonce, (t) => deps.crypto.sha256Hex(t));
  deps.passkeys().putChallenge({ challenge, purpose: "approve", plan_id: plan, nonce, name: null, created_at: now, expires_at: now + CHALLENGE_TTL_MS });
  return { options: await deps.webauthn.authenticationOptions(rp, { challenge, allow: active.map(allowed) }), steps: bound };
}

/**
 * Approves plan `planId` with a passkey assertion and mints its receipt through the same path as a terminal
 * approval (app/approve.ts approveWithProof). Refuses (`passkey_refused`, audited `approve.refused`): a challenge
 * that is unknown, used (a replayed assertion) or expired; one made for another plan, or for other steps or
 * preview hashes than `shown`; a credential never enrolled or revoked; a signature that does not verify; no user
 * verification; a counter that did not move forward. `plan_changed` when the plan is no longer `shown`.
 */
export async function approveWithPasskey(deps: DaemonDeps, rp: RelyingParty, planId: string, shown: { transaction_id: string; preview_hash: string }[], assertion: AuthenticationResponseJSON, caller: Caller): Promise<ApproveResult> {
  checkRp(rp);
  const { planId: plan, steps } = loadPlan(deps, planId);
  const now = deps.clock.now();
  let proof: PasskeyProof;
  try {
    const challenge = challengeOf(assertion.response.clientDataJSON);
    const row = deps.passkeys().findChallenge(challenge, "approve", now);
    if (row === null) throw refused("This assertion answers no open approval challenge (unknown, already used or expired): a replayed assertion is refused.", AGAIN);
    if (row.plan_id !== plan) throw refused(`This assertion was made for another plan (${row.plan_id ?? "?"}), not ${plan}.`, AGAIN);
    if (approvalChallenge(plan, shown, row.nonce ?? "", (t) => deps.crypto.sha256Hex(t)) !== challenge) {
      throw refused(`This assertion was made for other steps or preview hashes than the ${shown.length} shown for plan ${plan}.`, AGAIN);
    }
    const used = await checkAssertion(deps, rp, assertion, "approve", now);
    proof = {
      kind: "passkey", approver_name: used.name, credential_id: used.credential_id, user_verified: true, nonce: row.nonce ?? "", rp_id: rp.id, origin: rp.origin, anchor: anchorOf(deps, used.credential_id),
      assertion: {
        credential_id: assertion.id, authenticator_data: assertion.response.authenticatorData, client_data_json: assertion.response.clientDataJSON, signature: assertion.response.signature,
        ...(assertion.response.userHandle ? { user_handle: assertion.response.userHandle } : {}),
      },
    };
  } catch (err) {
    const first = steps[0]!;
    await audit(deps.audit(), "approve.refused", actorOf(caller), { plan_id: plan, transaction_ids: steps.map((t) => t.id), transaction_id: first.id, action: first.action_name, host: first.host, proof: "passkey", credential_id: assertion.id.slice(0, 256), message: (err as Error).message }).catch(() => undefined);
    throw err;
  }
  return approveWithProof(deps, plan, caller, shown, proof);
}

/** The active passkeys, oldest first, with ISO 8601 times. */
export function listPasskeys(deps: DaemonDeps): PasskeyListing[] {
  const enrolled = enrollmentsOf(deps);
  return deps.passkeys().list().map((p) => {
    const e = enrolled.get(p.credential_id);
    return {
      credential_id: p.credential_id, name: p.name, created_at: new Date(p.created_at).toISOString(), last_used_at: p.last_used_at === null ? null : new Date(p.last_used_at).toISOString(),
      enrolled_by: e?.by ?? null, enrolled_seq: e?.seq ?? null, vouched_by: e?.vouched_by ?? null,
    };
  });
}

/**
 * One active passkey as `hostgate console passkeys`, the console and doctor show it (times ISO 8601). From the
 * audit chain's `passkey.enrolled` entry (issue 23: a human spots a passkey they did not make): `enrolled_by`,
 * who enrolled it ({@link enrollerOf}), `enrolled_seq` that entry's seq and `vouched_by` the credential id of
 * the passkey that vouched for it; all three null when the chain has no such entry (a passkey that appeared
 * in state.db without one is itself a sign of tampering).
 */
export interface PasskeyListing {
  credential_id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  enrolled_by: string | null;
  enrolled_seq: number | null;
  vouched_by: string | null;
}

/**
 * Who an enrollment's audit actor was, for a human: `uid 1000 (admin socket)` when the kernel identified the
 * caller (the uid that minted the enrollment link), else its label (`console`) or the actor as recorded.
 */
export function enrollerOf(actor: string): string {
  const v = actorView(actor);
  if (v.uid !== undefined) return `uid ${v.uid}${v.socket === "admin" ? " (admin socket)" : v.socket ? ` (${v.socket})` : ""}${v.label === "console" ? " through the console" : ""}`;
  return v.label ?? v.raw ?? actor;
}

/** Every `passkey.enrolled` entry of the chain by credential id (the first one of each): seq, who, voucher. */
function enrollmentsOf(deps: DaemonDeps): Map<string, { seq: number; by: string; vouched_by: string | null }> {
  const out = new Map<string, { seq: number; by: string; vouched_by: string | null }>();
  for (const e of deps.audit().query({ kind: "passkey.enrolled", limit: 10_000 })) {
    let p: { credential_id?: unknown; vouched_by?: unknown };
    try {
      p = JSON.parse(e.payload) as typeof p;
    } catch {
      continue;
    }
    if (typeof p.credential_id !== "string" || out.has(p.credential_id)) continue;
    out.set(p.credential_id, { seq: e.seq, by: enrollerOf(e.actor), vouched_by: typeof p.vouched_by === "string" ? p.vouched_by : null });
  }
  return out;
}

/**
 * Revokes a passkey: it can no longer approve or vouch for another (`hostgate audit verify` also marks any later
 * approval by it broken). A `passkey.revoked` audit entry is durable first. Errors: `not_found` (never enrolled),
 * `invalid_params` (already revoked).
 */
export async function revokePasskey(deps: DaemonDeps, credentialId: string, caller: Caller): Promise<void> {
  const store = deps.passkeys();
  const p = store.get(credentialId);
  if (p === null) throw new HostgateError("not_found", `No passkey ${credentialId} was ever enrolled.`, { hint: "List them with: hostgate console passkeys" });
  if (p.revoked_at !== null) throw new HostgateError("invalid_params", `Passkey ${credentialId} (${p.name}) is already revoked.`, { hint: "List the active ones with: hostgate console passkeys" });
  await audit(deps.audit(), "passkey.revoked", actorOf(caller), { credential_id: credentialId, name: p.name }, true);
  store.revoke(credentialId, deps.clock.now());
}

/** Verifies an assertion of an active passkey for a challenge of `purpose`, then uses the challenge and records the use. */
async function checkAssertion(deps: DaemonDeps, rp: RelyingParty, assertion: AuthenticationResponseJSON, purpose: ChallengePurpose, now: number): Promise<PasskeyRecord> {
  const store = deps.passkeys();
  const challenge = challengeOf(assertion.response.clientDataJSON);
  if (purpose !== "approve" && store.findChallenge(challenge, purpose, now) === null) throw refused("This assertion answers no open challenge (unknown, already used or expired): a replayed assertion is refused.", AGAIN);
  const cred = store.get(assertion.id);
  if (cred === null) throw refused(`Passkey ${assertion.id.slice(0, 64)} was never enrolled here.`, "Use an enrolled passkey (hostgate console passkeys lists them), or enroll this one.");
  if (cred.revoked_at !== null) throw refused(`Passkey ${cred.name} was revoked ${new Date(cred.revoked_at).toISOString()}.`, "Use another enrolled passkey.");
  let verified;
  try {
    verified = await deps.webauthn.verifyAuthentication(rp, assertion, challenge, cred);
  } catch (err) {
    throw refused(`The assertion of passkey ${cred.name} does not verify: ${(err as Error).message}.`, "Approve again with user verification (PIN or biometrics) on the console page.");
  }
  if (!verified.user_verified) throw refused(`Passkey ${cred.name} did not verify the user.`, "Approve again with user verification (PIN or biometrics).");
  if (!store.useChallenge(challenge, now)) throw refused("This challenge was used meanwhile: a replayed assertion is refused.", AGAIN);
  if (!store.recordUse(cred.credential_id, verified.new_counter, now)) throw refused(`The signature counter of passkey ${cred.name} did not move forward (a cloned authenticator?).`, "Revoke this passkey and enroll a new one.");
  return cred;
}

/**
 * Where a passkey's enrollment was anchored, read from its `passkey.enrolled` audit entry (the chain is the record
 * `hostgate audit verify` checks it against): the uid recorded there when the link was minted on the admin socket
 * by a kernel-identified caller, else null.
 */
export function anchorOf(deps: DaemonDeps, credentialId: string): PasskeyAnchor {
  for (const e of deps.audit().query({ kind: "passkey.enrolled", limit: 10_000 })) {
    let p: { credential_id?: unknown; anchor?: { uid?: unknown; socket?: unknown } };
    try {
      p = JSON.parse(e.payload) as typeof p;
    } catch {
      continue;
    }
    if (p.credential_id !== credentialId) continue;
    const uid = p.anchor?.socket === "admin" && typeof p.anchor.uid === "number" ? p.anchor.uid : null;
    return { uid, seq: e.seq };
  }
  return { uid: null, seq: null };
}

/** The `challenge` of a clientDataJSON (base64url of the JSON text); `passkey_refused` when it is not one. */
function challengeOf(clientDataJSON: string): string {
  try {
    const text = atob(clientDataJSON.replace(/-/g, "+").replace(/_/g, "/"));
    const v = JSON.parse(text) as { challenge?: unknown };
    if (typeof v.challenge === "string" && v.challenge.length > 0 && v.challenge.length <= 256) return v.challenge;
  } catch {
    // fall through
  }
  throw refused("The response's clientDataJSON is not base64url JSON with a challenge.", AGAIN);
}

const allowed = (p: PasskeyRecord): { id: string; transports: readonly string[] } => ({ id: p.credential_id, transports: p.transports });

function refused(message: string, hint: string): HostgateError {
  return new HostgateError("passkey_refused", message, { hint });
}

/** A name: 1–64 printable characters, not taken by an active passkey. */
function checkName(name: string, active: readonly PasskeyRecord[]): void {
  if (typeof name !== "string" || name.trim() === "" || name.length > MAX_PASSKEY_NAME || /[\p{C}]/u.test(name)) {
    throw new HostgateError("invalid_params", `A passkey name is 1 to ${MAX_PASSKEY_NAME} printable characters (no control or format characters), not ${JSON.stringify(name.slice(0, 80))}.`, { hint: "Name it after the device, e.g. \"alice laptop\"." });
  }
  if (active.some((p) => p.name === name)) throw new HostgateError("invalid_params", `A passkey named ${JSON.stringify(name)} is already enrolled.`, { hint: "Choose another name, or revoke the old one first (hostgate console revoke <id>)." });
}

/** The relying party: id a host name, origin http(s)://<id>[:port]. */
function checkRp(rp: RelyingParty): void {
  const m = /^(https?):\/\/([^/:]+)(?::(\d{1,5}))?$/.exec(rp.origin);
  if (m === null || m[2] !== rp.id || rp.name === "") {
    throw new HostgateError("invalid_params", `Relying party ${JSON.stringify(rp)}: the origin must be http(s)://<id>[:port] with the rp id as its host.`, { hint: "The console passes { id: \"localhost\", origin: \"http://localhost:<port>\", name: \"hostgate\" }." });
  }
}
