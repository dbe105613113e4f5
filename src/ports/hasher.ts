/**
 * Cryptographic hashing for core/, which may not import node:crypto (DESIGN.md, Layers).
 * Implemented by `adapters/hasher-node.ts`.
 */
export interface Hasher {
  /** Lower-case hex SHA-256 (64 characters) of the UTF-8 encoding of `data`. */
  sha256Hex(data: string): string;
}
