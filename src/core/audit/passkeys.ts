import { approvalChallenge } from "../passkey-challenge.ts";

/**
 * Offline re-verification of passkey approvals in an audit chain (issue 23; docs/audit-format.md, "Passkeys").
 * Walking the entries in seq order, it learns each passkey from its `passkey.enrolled` entry (credential id,
 * name, COSE public key) and `passkey.revoked` entry, and for every `approve` entry with `method: "passkey"`
 * re-derives the challenge from the entry's plan_id, steps (transaction_id, preview_hash) and nonce
 * (core/passkey-challenge.ts) and asks `verifier` to check the recorded assertion against the key enrolled
 * EARLIER in the same chain: signature, challenge, origin, rpIdHash, user presence and verification. The chain's
 * own hashes and signatures are checked elsewhere (verify.ts); this runs after them.
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

/** One passkey approval that re-verified: `text` is "approved with passkey <name>, user verified". */
export interface PasskeyApprovalCheck {
  seq: number;
  plan_id: string;
  credential_id: string;
  name: string;
  text: string;
}

/** The result: every approval that verified, in seq order, and the first that did not (seq + why) or null. */
export interface PasskeyApprovalsResult {
  approvals: PasskeyApprovalCheck[];
  fault: { seq: number; detail: string } | null;
}

/** Audit entry kinds this check reads. */
export const PASSKEY_ENTRY_KINDS = ["passkey.enrolled", "passkey.revoked", "approve"] as const;

interface Known { name: string; public_key: string; enrolled_seq: number; revoked_seq: number | null }

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
        known.set(p.credential_id, { name: p.name, public_key: p.public_key, enrolled_seq: e.seq, revoked_seq: null });
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
    approvals.push({ seq: e.seq, plan_id: p.plan_id, credential_id: id, name: k.name, text: `approved with passkey ${k.name}, user verified` });
  }
  return { approvals, fault: null };
}

function parse(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
