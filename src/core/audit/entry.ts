import { canonicalJson, utf8 } from "./canonical.ts";

/**
 * The audit entry model and the exact byte strings that are hashed and signed (docs/audit-format.md).
 * Format version 1. Everything here is pure; hashing and signing are supplied by the caller through
 * {@link AuditCrypto} (core/ has no node: imports).
 */

/** Format version written into every hash preimage, checkpoint and rotation proof. */
export const AUDIT_FORMAT_VERSION = 1;

/** `prev_hash` of the first entry (seq 1): 64 zeros. */
export const GENESIS_PREV_HASH = "0".repeat(64);

/** Kind of the first entry of every chain; its payload names the first key ({@link GenesisPayload}). */
export const KIND_GENESIS = "audit.genesis";
/** Kind of a key rotation entry; its payload is a {@link RotationPayload}. */
export const KIND_KEY_ROTATION = "audit.key_rotation";

/** Domain-separation prefixes, so a signature over one kind of message can never be replayed as another. */
export const ENTRY_SIGNATURE_PREFIX = "hostgate-audit-entry-v1\n";
export const CHECKPOINT_SIGNATURE_PREFIX = "hostgate-audit-checkpoint-v1\n";
export const ROTATION_PROOF_PREFIX = "hostgate-audit-rotation-v1\n";

/**
 * One stored audit entry (wire and storage form). `payload` is the canonical JSON text of the (redacted)
 * payload, stored verbatim; `ts` is milliseconds since the Unix epoch and never decreases along the chain;
 * `hash` is lowercase hex SHA-256 of {@link entryHashPreimage}; `signature` is base64url Ed25519 over
 * {@link entrySignatureInput} made with the key `key_id`.
 */
export interface AuditEntry {
  seq: number;
  ts: number;
  kind: string;
  actor: string;
  payload: string;
  prev_hash: string;
  hash: string;
  key_id: string;
  signature: string;
}

/** A signed checkpoint: the chain head `hash` at `seq`, signed at `ts` (ms) by key `key_id` (base64url signature). */
export interface Checkpoint {
  seq: number;
  hash: string;
  ts: number;
  key_id: string;
  signature: string;
}

/** Payload of the genesis entry: the first signing key (public key as base64url of the 32 raw bytes). */
export interface GenesisPayload {
  format: string;
  key_id: string;
  public_key: string;
}

/**
 * Payload of a key rotation entry. The entry itself is signed by the old key; `proof` is the new key's
 * signature over {@link rotationProofInput}, so each key vouches for the other.
 */
export interface RotationPayload {
  old_key_id: string;
  new_key_id: string;
  new_public_key: string;
  proof: string;
}

/** Hash and signature primitives the core needs; implemented with node:crypto in adapters/signer-ed25519.ts. */
export interface AuditCrypto {
  /** Lowercase hex SHA-256 of `data` (a string is hashed as its UTF-8 bytes). */
  sha256Hex(data: Uint8Array | string): string;
  /** True when `signature` (base64url) is a valid Ed25519 signature of `message` by `publicKey` (base64url raw 32 bytes). */
  verify(publicKey: string, message: Uint8Array, signature: string): boolean;
}

/** Fields that go into an entry's hash (everything except `hash` and `signature`). */
export type EntryBody = Omit<AuditEntry, "hash" | "signature">;

/**
 * The byte string whose SHA-256 is the entry hash: the canonical JSON of
 * `{actor, key_id, kind, payload, prev_hash, seq, ts, v}` where `payload` is the entry's stored canonical
 * payload text embedded as a JSON value (not as a string) and `v` is {@link AUDIT_FORMAT_VERSION}.
 * Built by concatenation (keys already in sorted order) so verification never re-parses the payload;
 * equal to `canonicalBytes({...})` of the parsed form whenever `payload` is canonical (tested).
 */
export function entryHashPreimage(e: EntryBody): Uint8Array {
  return utf8(entryHashPreimageText(e));
}

/** {@link entryHashPreimage} as text (its UTF-8 encoding is the preimage). */
export function entryHashPreimageText(e: EntryBody): string {
  return (
    `{"actor":${JSON.stringify(e.actor)},"key_id":${JSON.stringify(e.key_id)},"kind":${JSON.stringify(e.kind)},` +
      `"payload":${e.payload},"prev_hash":${JSON.stringify(e.prev_hash)},"seq":${e.seq},"ts":${e.ts},"v":${AUDIT_FORMAT_VERSION}}`
  );
}

/** The byte string an entry signature covers: {@link ENTRY_SIGNATURE_PREFIX} followed by the hex hash. */
export function entrySignatureInput(hash: string): Uint8Array {
  return utf8(ENTRY_SIGNATURE_PREFIX + hash);
}

/** The byte string a checkpoint signature covers: prefix + canonical JSON of `{hash, key_id, seq, ts, v}`. */
export function checkpointSignatureInput(cp: Omit<Checkpoint, "signature">): Uint8Array {
  return utf8(CHECKPOINT_SIGNATURE_PREFIX + canonicalJson({ hash: cp.hash, key_id: cp.key_id, seq: cp.seq, ts: cp.ts, v: AUDIT_FORMAT_VERSION }));
}

/** The byte string the new key signs in a rotation: prefix + canonical JSON of `{new_key_id, new_public_key, old_key_id, v}`. */
export function rotationProofInput(p: Omit<RotationPayload, "proof">): Uint8Array {
  return utf8(
    ROTATION_PROOF_PREFIX +
      canonicalJson({ new_key_id: p.new_key_id, new_public_key: p.new_public_key, old_key_id: p.old_key_id, v: AUDIT_FORMAT_VERSION }),
  );
}

/** Computes the entry hash (lowercase hex) for `body`. */
export function entryHash(body: EntryBody, crypto: Pick<AuditCrypto, "sha256Hex">): string {
  return crypto.sha256Hex(entryHashPreimageText(body));
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Decodes unpadded base64url; returns null on any character outside the alphabet or an impossible length. */
export function base64UrlDecode(text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (const ch of text) {
    const v = B64URL.indexOf(ch);
    if (v < 0) return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/** Key id of an Ed25519 public key (base64url raw 32 bytes): the first 16 hex digits of SHA-256 of the raw bytes; null if malformed. */
export function keyIdOf(publicKey: string, crypto: Pick<AuditCrypto, "sha256Hex">): string | null {
  const raw = base64UrlDecode(publicKey);
  if (raw?.length !== 32) return null;
  return crypto.sha256Hex(raw).slice(0, 16);
}

/** Allowed entry kinds: lowercase dotted identifiers, e.g. `execute.intent`, at most 64 characters. */
export const KIND_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/;
/** Longest accepted actor string (characters). */
export const MAX_ACTOR_LENGTH = 256;
