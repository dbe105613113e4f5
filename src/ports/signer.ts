import type { AuditCrypto } from "../core/audit/entry.ts";

/**
 * The audit signing key. Implemented by adapters/signer-ed25519.ts (Ed25519 via node:crypto, key files under the
 * daemon's state dir, 0600). Key ids are the first 16 hex digits of SHA-256 of the raw 32-byte public key.
 */
export interface Signer {
  /** Id of the key that signs now. */
  readonly keyId: string;
  /** The current public key, base64url of the 32 raw bytes. */
  readonly publicKey: string;
  /** Ed25519 signature of `message` with the current key, base64url. */
  sign(message: Uint8Array): string;
  /** Every public key this signer has held (current and rotated-out), key id → base64url raw key. */
  knownPublicKeys(): Map<string, string>;
  /**
   * Step 1 of rotation: creates the next key (stored beside the current one, not yet active) and returns its id,
   * public key and its proof signature over `proofInput(old, new)`. Call {@link commitRotation} once the rotation
   * entry is durably in the chain, or {@link abortRotation} if it could not be written.
   */
  prepareRotation(proofInput: (p: { old_key_id: string; new_key_id: string; new_public_key: string }) => Uint8Array): {
    old_key_id: string;
    new_key_id: string;
    new_public_key: string;
    proof: string;
  };
  /** Step 2 of rotation: the prepared key becomes current; the old private key is deleted. */
  commitRotation(): void;
  /** Discards a prepared key. */
  abortRotation(): void;
  /**
   * After a crash between the two rotation steps: finishes the rotation if the chain's last rotation names the
   * prepared key (`chainKeyId` is the key id the chain expects to sign next), discards it otherwise.
   */
  recover(chainKeyId: string | null): void;
}

/** node:crypto-backed hashing and signature checks, shared by the store, the verifier and the workers. */
export type { AuditCrypto };
