import type { Checkpoint } from "./entry.ts";
import type { VerifyResult, Witness } from "./verify.ts";

/**
 * Honest verification (issue 12). A hash chain and the checkpoints stored beside it prove nothing about the
 * chain's end: whoever can rewrite the state directory can delete the newest entries together with their
 * checkpoints, or re-sign a whole new chain with a key of their own and put its public key beside it. So a
 * chain that checks out is `intact` only when
 * - the key it was checked against did not come from the state directory (it was pinned outside it at first
 *   start, or given by the verifier), and
 * - evidence from outside the state directory covers its last entry: a checkpoint from the copy in the second
 *   place (configured outside the state directory), or a witness `(seq, hash)` a human or client kept.
 * Otherwise it is `unanchored`, with the reason and how far outside evidence reaches.
 */

/** Where the evidence of one verification came from. */
export interface AnchorEvidence {
  /** The trusted public keys: pinned outside the state dir, given by the verifier, or read from the state dir. */
  key_source: "pinned" | "given" | "state_dir";
  /** Checkpoints from outside the state directory (the copy); all were checked with the chain. */
  outside_checkpoints: readonly Checkpoint[];
  /** Witnesses the verifier holds; all were checked with the chain. */
  witnesses: readonly Witness[];
}

/**
 * Turns the result of the chain checks into the honest one: `broken` and `cannot_verify` pass unchanged; an
 * `intact` chain becomes `unanchored` unless its key is not from the state directory and outside evidence
 * reaches its last entry. `anchored_seq` of the result is the highest seq outside evidence covers.
 */
export function judgeAnchoring(result: VerifyResult, evidence: AnchorEvidence): VerifyResult {
  if (result.status !== "intact") return result;
  const outside = Math.max(0, ...evidence.outside_checkpoints.map((c) => c.seq), ...evidence.witnesses.map((w) => w.seq));
  const base = {
    anchored_seq: Math.min(outside, result.last_seq), last_seq: result.last_seq, checked: result.checked, signatures_checked: result.signatures_checked,
    ...(result.passkey_approvals === undefined ? {} : { passkey_approvals: result.passkey_approvals }),
  };
  if (evidence.key_source === "state_dir") {
    return {
      status: "unanchored", reason: "key_not_pinned", ...base,
      detail: "the public key was read from the state directory, which an attacker who rewrote the chain could also rewrite; verify against the pinned key (`hostgate audit public-key` shows where it is) or pass --public-key",
    };
  }
  if (outside === 0) {
    return {
      status: "unanchored", reason: "no_outside_anchor", ...base,
      detail: "no checkpoint from outside the state directory and no witness: entries could have been cut from the end without trace; configure audit.checkpoint_copy outside the state directory, or pass --witness seq:hash, the newest you hold (from the last approval or execute result)",
    };
  }
  if (outside < result.last_seq) {
    // Every witness was checked with the chain (a mismatch is `broken`), so the newest one held matches.
    const witness = Math.max(0, ...evidence.witnesses.map((w) => w.seq));
    const held = witness === 0 ? "" : `the witness at seq ${witness} matches (nothing up to it was cut or changed); `;
    return {
      status: "unanchored", reason: "head_not_anchored", ...base,
      detail: `${held}outside evidence reaches seq ${outside}; entries ${outside + 1}..${result.last_seq} are newer and not covered by a checkpoint from outside the state directory or a witness (pass the newest witness you hold: the last execute result's checkpoint)`,
    };
  }
  return { ...result, anchored_seq: outside };
}
