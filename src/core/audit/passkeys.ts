import { approvalChallenge } from "../passkey-challenge.ts";

/**
 * Offline re-verification of passkey approvals in an audit chain (issue 23; docs/audit-format.md, "Passkeys").
 * Walking the entries in seq order, it learns each passkey from its `passkey.enrolled` entry (credential id,
 * name, COSE public key) and `passkey.revoked` entry, and for every `approve` entry with `method: "passkey"`
 * re-derives the challenge from the entry's plan_id, steps (transaction_id, preview_hash) and nonce
 * (core/passkey-challenge.ts) and asks `verifier` to check the recorded assertion against the key enrolled
 * EARLIER in the same chain: signature, challenge, origin, rpIdHash, user presence and verification. It also
 * checks what the approval claims to prove: an approval recorded `separated` must come from a system daemon and
 * name the anchor uid its passkey's `passkey.enrolled` entry recorded, a uid other than the planner's (not both
 * root); any approval naming an anchor uid must name that one. The chain's own hashes and signatures are checked
 * elsewhere (verify.ts); this runs after them.
 */

/** Checks one recorded assertion; resolves null when it verifies, else why not (one line). */
export type RecordedAssertionVerifier = (input: {
  public_key: string;
  credential_id: string;
  authenticator_data: string;
  client_data_json: string;
  signature: string;
  challenge: string;
  rp_id: string;
  origin: string;
}) => Promise<string | null>;

/**
 * One passkey approval that re-verified: `text` is "approved with passkey <name>, user verified; " then what it
 * proves: "separated (<facts>)", "convenience, same user" (embedded daemon) or "separation none (<facts>)".
 */
export interface PasskeyApprovalCheck {
  seq: number;
  plan_id: string;
  credential_id: string;
  name: string;
  /** The separation the approval entry records (core/approval-proof.ts passkeySeparation). */
  separation: "separated" | "none";
  text: string;
}

/** The result: every approval that verified, in seq order, and the first that did not (seq + why) or null. */
export interface PasskeyApprovalsResult {
  approvals: PasskeyApprovalCheck[];
  fault: { seq: number; detail: string } | null;
}

/** Audit entry kinds this check reads. */
export const PASSKEY_ENTRY_KINDS = ["passkey.enrolled", "passkey.revoked", "approve"] as const;

interface Known { name: string; public_key: string; enrolled_seq: number; revoked_seq: number | null; anchor_uid: number | null }

/**
 * Re-verifies every passkey approval among `entries` (any entries, seq order; those of other kinds are skipped).
 * Stops at the first that does not verify. `sha256Hex`: SHA-256 of UTF-8 text, lowercase hex.
 */
export async function checkPasskeyApprovals(entries: Iterable<{ seq: number; kind: string; payload: string }>, verifier: RecordedAssertionVerifier, sha256Hex: (text: string) => string): Promise<PasskeyApprovalsResult> {
  const known = new Map<string, Known>();
  const approvals: PasskeyApprovalCheck[] = [];
  for (const e of entries) {
    if (e.kind !== "passkey.enrolled" && e.kind !== "passkey.revoked" && e.kind !== "approve") continue;
    const p = parse(e.payload);
    if (e.kind === "passkey.enrolled") {
      if (typeof p.credential_id === "string" && typeof p.public_key === "string" && typeof p.name === "string" && !known.has(p.credential_id)) {
        const anchor = p.anchor as { uid?: unknown; socket?: unknown } | undefined;
        const anchorUid = anchor !== null && typeof anchor === "object" && anchor.socket === "admin" && typeof anchor.uid === "number" ? anchor.uid : null;
        known.set(p.credential_id, { name: p.name, public_key: p.public_key, enrolled_seq: e.seq, revoked_seq: null, anchor_uid: anchorUid });
      }
      continue;
    }
    if (e.kind === "passkey.revoked") {
      const k = typeof p.credential_id === "string" ? known.get(p.credential_id) : undefined;
      if (k !== undefined && k.revoked_seq === null) k.revoked_seq = e.seq;
      continue;
    }
    if (p.method !== "passkey") continue;
    const fault = (detail: string): PasskeyApprovalsResult => ({ approvals, fault: { seq: e.seq, detail: `entry ${e.seq}: passkey approval of plan ${String(p.plan_id)}: ${detail}` } });
    const a = p.passkey as Record<string, unknown> | undefined;
    const steps = Array.isArray(p.steps) ? (p.steps as Record<string, unknown>[]) : null;
    if (a === undefined || typeof a !== "object" || steps === null || typeof p.plan_id !== "string") return fault("the entry does not hold the assertion, the plan id and its steps");
    const fields = ["credential_id", "authenticator_data", "client_data_json", "signature", "nonce", "rp_id", "origin"] as const;
    if (fields.some((f) => typeof a[f] !== "string") || steps.some((s) => typeof s.transaction_id !== "string" || typeof s.preview_hash !== "string")) return fault("the recorded assertion is incomplete");
    const id = a.credential_id as string;
    const k = known.get(id);
    if (k === undefined) return fault(`passkey ${id} was not enrolled earlier in this chain`);
    if (k.revoked_seq !== null) return fault(`passkey ${k.name} was revoked at seq ${k.revoked_seq}, before this approval`);
    if (typeof p.approver === "string" && p.approver !== k.name) return fault(`the entry names the approver ${JSON.stringify(p.approver)}, but the passkey was enrolled as ${JSON.stringify(k.name)}`);
    const challenge = approvalChallenge(p.plan_id, steps as { transaction_id: string; preview_hash: string }[], a.nonce as string, sha256Hex);
    const why = await verifier({
      public_key: k.public_key, credential_id: id, authenticator_data: a.authenticator_data as string, client_data_json: a.client_data_json as string,
      signature: a.signature as string, challenge, rp_id: a.rp_id as string, origin: a.origin as string,
    });
    if (why !== null) return fault(`the assertion does not verify: ${why}`);
    const claimed = separationClaim(p, a, k);
    if (typeof claimed !== "object") return fault(claimed);
    approvals.push({ seq: e.seq, plan_id: p.plan_id, credential_id: id, name: k.name, separation: claimed.separation, text: `approved with passkey ${k.name}, user verified; ${claimed.text}` });
  }
  return { approvals, fault: null };
}

/** What an approval entry claims to prove, checked against its passkey's enrollment anchor; a string says why it is false. */
function separationClaim(p: Record<string, unknown>, a: Record<string, unknown>, k: Known): { separation: "separated" | "none"; text: string } | string {
  const facts = typeof p.separation_facts === "string" ? p.separation_facts : "";
  const anchor = a.anchor_uid;
  if (anchor !== undefined && anchor !== k.anchor_uid) return `the entry names the enrollment anchor uid ${JSON.stringify(anchor)}, but passkey ${k.name} was enrolled through a link minted by uid ${String(k.anchor_uid)}`;
  if (p.separation !== "separated") return { separation: "none", text: a.daemon === "embedded" ? "convenience, same user" : `separation none (${facts})` };
  const planner = a.planner_uid;
  if (a.daemon !== "system") return "the entry says separated, but the approval was not taken by a system daemon";
  if (typeof anchor !== "number") return `the entry says separated, but passkey ${k.name} has no recorded enrollment anchor`;
  if (planner === anchor) return `the entry says separated, but the enrollment anchor uid ${anchor} is the planner's`;
  return { separation: "separated", text: `separated (${facts})` };
}

function parse(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
