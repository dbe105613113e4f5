/**
 * Randomness and hashing for the use cases (core has neither). Implemented by adapters/crypto-node.ts with
 * node:crypto; tests may inject a deterministic one.
 */
export interface Crypto {
  /** `bytes` cryptographically random bytes, base64url without padding. */
  randomBase64Url(bytes: number): string;
  /** A random UUID (v4), for transaction ids. */
  uuid(): string;
  /** SHA-256 of the UTF-8 encoding of `text`, lowercase hex. */
  sha256Hex(text: string): string;
  /** Constant-time equality of two strings of hex or base64url (false when lengths differ). */
  timingSafeEqual(a: string, b: string): boolean;
}
