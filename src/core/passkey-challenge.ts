import { canonicalJson } from "./audit/canonical.ts";

/**
 * The WebAuthn challenge of a passkey approval (issue 23): SHA-256 of the canonical JSON of
 * `{ kind: "hostgate.approve", nonce, plan_id, steps: [{ transaction_id, preview_hash }, …] }` (steps in plan
 * order), as base64url (no padding) of the 32 digest bytes — the value clientDataJSON's `challenge` holds. The
 * authenticator signs clientDataJSON, so the signature covers exactly the steps and preview hashes the human was
 * shown; `nonce` (random, held by the daemon until used once) makes each challenge single-use. The daemon and
 * `hostgate audit verify` (offline, from the approval entry) compute it the same way. `sha256Hex`: the hash
 * function (ports/hasher.ts), lowercase hex.
 */
export function approvalChallenge(planId: string, steps: readonly { transaction_id: string; preview_hash: string }[], nonce: string, sha256Hex: (text: string) => string): string {
  const input = canonicalJson({ kind: "hostgate.approve", nonce, plan_id: planId, steps: steps.map((s) => ({ preview_hash: s.preview_hash, transaction_id: s.transaction_id })) });
  return hexToBase64Url(sha256Hex(input));
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Lowercase or uppercase hex (even length) → base64url without padding. Throws on a character that is not hex. */
export function hexToBase64Url(hex: string): string {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error(`not hex: ${hex.slice(0, 16)}`);
  const bytes: number[] = [];
  for (let i = 0; i < hex.length; i += 2) bytes.push(parseInt(hex.slice(i, i + 2), 16));
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b, c] = [bytes[i]!, bytes[i + 1], bytes[i + 2]];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    if (b !== undefined) out += ALPHABET[(n >> 6) & 63]!;
    if (c !== undefined) out += ALPHABET[n & 63]!;
  }
  return out;
}
