/**
 * Cryptographic hashing for core/, which may not import node:crypto (DESIGN.md, Layers).
 * Implemented by `adapters/crypto-node.ts` (as part of the Crypto port).
 */
export interface Hasher {
  /** Lower-case hex SHA-256 (64 characters) of the UTF-8 encoding of `data`. */
  sha256Hex(data: string): string;
  /** Lower-case hex SHA-256 of raw bytes (an SSH public key blob, whose fingerprint is over its bytes). */
  sha256HexBytes(data: Uint8Array): string;
}
