import type { RiskLevel } from "./catalogue/action.ts";
import { riskRank } from "./risk-level.ts";
import { HostgateError } from "./errors.ts";
import { SEPARATED_ROUTE, checkApprover, type SameUserPolicy, type SeparationFacts } from "./approval.ts";
import { parseActor } from "./caller.ts";
import { TEST_APPROVER_BRAND } from "./approval-test-brand.ts";

/**
 * The approver proof (issue 23): what stands behind one approval, judged in one place ({@link judgeApproval}).
 * Every approval, whatever its route, passes here; there is no exemption for the daemon's own process.
 * - `terminal`: a process on the admin socket; `uid` from SO_PEERCRED and `tty` (tty_nr of /proc/<pid>/stat) read
 *   by the daemon itself, never claimed by the client (app/approve.ts builds it). Null = the kernel did not say.
 * - `passkey`: a WebAuthn assertion app/passkeys.ts has verified (signature with the enrolled public key, user
 *   verification, single-use challenge derived from the plan's steps). Carries what the audit entry records so
 *   `hostgate audit verify` can re-check it offline.
 * - `test`: tests' stand-in for a human who passed; it carries {@link TEST_APPROVER_BRAND}, which only this
 *   module and test code import (test/architecture/approver-proof.test.ts), so production code cannot build one.
 */
export type ApproverProof = TerminalProof | PasskeyProof | TestProof;

/** A human at a terminal on the admin socket, from the kernel's facts. */
export interface TerminalProof {
  kind: "terminal";
  uid: number | null;
  /** tty_nr of the approving process (0 = no controlling terminal; null = unknown). */
  tty: number | null;
}

/** The parts of a WebAuthn assertion the audit entry keeps, base64url as the browser sent them. */
export interface RecordedAssertion {
  credential_id: string;
  authenticator_data: string;
  client_data_json: string;
  signature: string;
  user_handle?: string;
}

/** A verified passkey assertion (app/passkeys.ts is the only code that builds one, after verifying it). */
export interface PasskeyProof {
  kind: "passkey";
  /** The enrolled passkey's name (what the approver called it at enrollment). */
  approver_name: string;
  credential_id: string;
  /** The authenticator's UV flag; the judge refuses false. */
  user_verified: boolean;
  assertion: RecordedAssertion;
  /** The daemon nonce that, with the plan's steps, derives the challenge (core/passkey-challenge.ts). */
  nonce: string;
  /** The relying party the assertion was made for: WebAuthn rpId and the page's origin. */
  rp_id: string;
  origin: string;
  /** Where the passkey's enrollment was anchored, from its `passkey.enrolled` audit entry ({@link PasskeyAnchor}). */
  anchor: PasskeyAnchor;
}

/**
 * Who anchored a passkey's enrollment: the kernel uid of the admin-socket caller that minted the one-time
 * enrollment link (null: not recorded, e.g. enrolled before anchors were recorded) and the seq of its
 * `passkey.enrolled` audit entry (null: not found in the chain).
 */
export interface PasskeyAnchor {
  uid: number | null;
  seq: number | null;
}

/** Which daemon serves the approval: `embedded` (inside a front, as the assistant's user) or `system` (a service). */
export type DaemonMode = "embedded" | "system";

/** The words for a passkey approval the embedded daemon took (docs/console.md, "What a passkey approval proves"). */
export const CONVENIENCE_SAME_USER = "convenience, same user";

/**
 * What a passkey approval proves about who approved (issue 23), as separation facts:
 * - on the embedded daemon: `none`, "convenience, same user": the daemon runs as the assistant's user, which can
 *   write its state, so a passkey there proves a touch on an enrolled authenticator, not a second person;
 * - on a system daemon: `separated` when the passkey's enrollment link was minted on the admin socket by a uid
 *   other than the planner's (root counts, unless the planner is root too; a plan made over tcp:// by a daemon
 *   token holder has no uid and counts as other), else `none` with the reason (same uid, both root, anchor not
 *   recorded). `plannerActor`: the plan's audit actor (core/caller.ts actorOf).
 */
export function passkeySeparation(plannerActor: string, anchor: PasskeyAnchor, mode: DaemonMode, name: string): SeparationFacts {
  const a = parseActor(plannerActor);
  const planner = a?.uid ?? null;
  const base = { planner_uid: planner, approver_uid: anchor.uid };
  if (mode === "embedded") return { ...base, separation: "none", why: `${CONVENIENCE_SAME_USER}: passkey ${name} approved on the embedded daemon, which runs as the assistant's user and keeps its enrollment where that user can write` };
  const where = `passkey ${name} enrolled through a link minted on the admin socket by uid ${String(anchor.uid)}`;
  if (anchor.uid === null) return { ...base, separation: "none", why: `passkey ${name} has no recorded enrollment anchor (no uid in its passkey.enrolled entry)` };
  if (planner === null && a?.socket === "tcp") return { ...base, separation: "separated", why: `${where}; planned over tcp:// by a daemon-token holder (no local uid)` };
  if (planner === null) return { ...base, separation: "none", why: `${where}; the kernel reported no uid for the front that planned it` };
  if (planner === 0 && anchor.uid === 0) return { ...base, separation: "none", why: `${where}; planner and enrollment anchor are both root` };
  if (planner === anchor.uid) return { ...base, separation: "none", why: `${where}, the planner's own uid` };
  return { ...base, separation: "separated", why: `${where}; planned by uid ${planner}` };
}

/** Tests' approver (see {@link ApproverProof}); build it with test/support/approver.ts. */
export interface TestProof {
  kind: "test";
  brand: typeof TEST_APPROVER_BRAND;
}

/** How an approval was given, as the audit entry and history record it. `test` appears only in tests' chains. */
export type ApprovalMethod = "terminal" | "same-user" | "passkey" | "test";

/** What the judge needs besides the proof. */
export interface ApprovalRules {
  same_user: SameUserPolicy;
  /** Why this plan needs a passkey approval ({@link passkeyRequirement}), or null when any approval will do. */
  passkey_required: string | null;
}

/** Where to send a human whose plan needs a passkey. */
export const PASSKEY_ROUTE = "Run `hostgate console` and approve the plan there with an enrolled passkey (enroll one first with `hostgate console enroll`).";

/**
 * Judges one approval. Returns the method the audit entry records: `passkey`; `terminal` (a separated terminal
 * approval) or `same-user` (a terminal approval with separation `none`, allowed by approval.same_user: allow);
 * `test`. Throws HostgateError:
 * - `passkey_required` when `rules.passkey_required` is set and the proof is not a passkey (what to do: the console);
 * - `approval_refused` for a terminal proof without a controlling terminal, or with separation `none` under
 *   approval.same_user: deny (core/approval.ts `checkApprover`), and for a `test` proof without the brand.
 * A passkey approval is not subject to approval.same_user: the passkey is a factor the assistant cannot produce.
 */
export function judgeApproval(proof: ApproverProof, facts: SeparationFacts, rules: ApprovalRules): ApprovalMethod {
  if (proof.kind === "test" && proof.brand !== TEST_APPROVER_BRAND) {
    throw new HostgateError("approval_refused", "This approval carries a test proof that is not one: only tests can approve that way.", { hint: SEPARATED_ROUTE });
  }
  if (rules.passkey_required !== null && proof.kind !== "passkey") {
    throw new HostgateError("passkey_required", `This plan needs a passkey approval (${rules.passkey_required}); a terminal approval cannot mint its receipt.`, { hint: PASSKEY_ROUTE });
  }
  switch (proof.kind) {
    case "passkey":
      if (!proof.user_verified) throw new HostgateError("approval_refused", "A passkey approval needs user verification.", { hint: PASSKEY_ROUTE });
      return "passkey";
    case "test":
      return "test";
    case "terminal":
      checkApprover(facts, proof.tty, rules.same_user);
      return facts.separation === "separated" ? "terminal" : "same-user";
  }
}

/**
 * Why a plan needs a passkey approval, or null: `from` (config `approval.passkey_required_from`, null = never)
 * at or below a step's risk_level, or a step whose preview records the policy decision `require_biometric`
 * (RunCommand's `intended.decision`, judged by the Cedar policy when the preview was computed, so it is covered
 * by the preview_hash). `steps`: each step's transaction id, risk_level and preview `intended` object.
 */
export function passkeyRequirement(steps: readonly { id: string; risk_level: RiskLevel; intended?: unknown }[], from: RiskLevel | null): string | null {
  for (const s of steps) {
    const decision = typeof s.intended === "object" && s.intended !== null ? (s.intended as { decision?: unknown }).decision : undefined;
    if (decision === "require_biometric") return `the policy decided require_biometric for step ${s.id}`;
  }
  if (from === null) return null;
  const hit = steps.find((s) => riskRank(s.risk_level) >= riskRank(from));
  return hit === undefined ? null : `step ${hit.id} is ${hit.risk_level} risk, and approval.passkey_required_from is ${from}`;
}
