import type { Hasher } from "./hasher.ts";

/**
 * Randomness and hashing for the use cases (core has neither). Implemented by adapters/crypto-node.ts with
 * node:crypto; tests may inject a deterministic one.
 */
export interface Crypto extends Hasher {
  /** `bytes` cryptographically random bytes, base64url without padding. */
  randomBase64Url(bytes: number): string;
  /** A random UUID (v4), for transaction ids. */
  uuid(): string;
  /** Constant-time equality of two strings of hex or base64url (false when lengths differ). */
  timingSafeEqual(a: string, b: string): boolean;
}
