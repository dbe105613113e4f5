import {
  GENESIS_PREV_HASH,
  KIND_GENESIS,
  KIND_KEY_ROTATION,
  checkpointSignatureInput,
  entryHash,
  entrySignatureInput,
  keyIdOf,
  rotationProofInput,
} from "./entry.ts";
import type { AuditCrypto, AuditEntry, Checkpoint, GenesisPayload, RotationPayload } from "./entry.ts";
import type { PasskeyApprovalCheck } from "./passkeys.ts";

/**
 * Chain verification (docs/audit-format.md, "Verification"). Split in three parts so the expensive part can
 * run on several cores: {@link checkEntrySelf} (hash + signature of one entry, independent of every other),
 * {@link ChainWalker} (order, links, key schedule: sequential but cheap) and {@link checkCheckpoints}
 * (anchoring and truncation). {@link verifyEntries} runs all three in one thread.
 */

/** Why a chain is broken. */
export type BrokenReason = "hash_mismatch" | "bad_signature" | "missing_entries" | "truncated" | "reordered" | "bad_passkey_assertion";

/** Why a chain could not be verified at all. */
export type CannotVerifyWhy = "no_key" | "unreadable_store" | "bad_input";

/**
 * Result of verification. `intact`: every entry from the start (or `since_seq`) to `last_seq` is linked,
 * hashed and signed correctly and every checkpoint matches; `anchored_seq` is the highest seq covered by a
 * valid checkpoint (0 if none), so truncation up to that seq would have been detected. `broken`: the first
 * offending seq (in storage order) and why. `cannot_verify`: nothing was concluded.
 */
export type VerifyResult =
  | { status: "intact"; anchored_seq: number; last_seq: number; checked: number; signatures_checked: boolean; passkey_approvals?: PasskeyApprovalCheck[] }
  | UnanchoredResult
  | { status: "broken"; reason: BrokenReason; first_bad_seq: number; detail: string }
  | { status: "cannot_verify"; why: CannotVerifyWhy; detail: string };

/**
 * Why a chain that checks out is still not proven whole (see anchor.ts): no evidence from outside the state
 * directory covers its head, or the trusted key itself came from the state directory.
 */
export type UnanchoredReason = "no_outside_anchor" | "head_not_anchored" | "key_not_pinned";

/**
 * A chain whose entries all check out, but whose head is not anchored by evidence from outside the state
 * directory: its newest entries (after `anchored_seq`, 0 = all of them) could have been cut, or the whole chain
 * re-signed, without this verification noticing. Never reported as `intact`.
 */
export interface UnanchoredResult {
  status: "unanchored";
  reason: UnanchoredReason;
  anchored_seq: number;
  last_seq: number;
  checked: number;
  signatures_checked: boolean;
  detail: string;
  /** Every passkey approval re-verified offline (audit/passkeys.ts), when the chain holds any. */
  passkey_approvals?: PasskeyApprovalCheck[];
}

/** A seq and hash held outside the chain (printed by `hostgate approve`, returned by execute): the chain must reach it. */
export interface Witness {
  seq: number;
  hash: string;
}

/** One problem found; `pos` is the 0-based storage position (Infinity for checkpoint-only findings). */
export interface Fault {
  pos: number;
  seq: number;
  reason: BrokenReason;
  detail: string;
}

/** Trusted public keys: key id → base64url raw Ed25519 public key. */
export type KeyRing = ReadonlyMap<string, string>;

/**
 * Checks one entry on its own: the stored hash equals the recomputed hash, and (unless `signatures` is false)
 * the signature verifies with the trusted key named by `key_id`. Returns null when fine.
 */
export function checkEntrySelf(e: AuditEntry, keys: KeyRing, crypto: AuditCrypto, signatures: boolean): Omit<Fault, "pos"> | null {
  if (entryHash(e, crypto) !== e.hash) return { seq: e.seq, reason: "hash_mismatch", detail: `entry ${e.seq}: stored hash differs from the recomputed hash` };
  if (!signatures) return null;
  const key = keys.get(e.key_id);
  if (key === undefined) return { seq: e.seq, reason: "bad_signature", detail: `entry ${e.seq}: signed by key ${e.key_id}, which is not trusted` };
  if (!crypto.verify(key, entrySignatureInput(e.hash), e.signature)) {
    return { seq: e.seq, reason: "bad_signature", detail: `entry ${e.seq}: signature does not verify with key ${e.key_id}` };
  }
  return null;
}

/** Parses a rotation payload; null if it is not one. */
export function parseRotation(payload: string): RotationPayload | null {
  const p = safeParse(payload);
  if (p === null || typeof p !== "object") return null;
  const r = p as Record<string, unknown>;
  for (const k of ["old_key_id", "new_key_id", "new_public_key", "proof"]) if (typeof r[k] !== "string") return null;
  return r as unknown as RotationPayload;
}

/** Parses a genesis payload; null if it is not one. */
export function parseGenesis(payload: string): GenesisPayload | null {
  const p = safeParse(payload);
  if (p === null || typeof p !== "object") return null;
  const r = p as Record<string, unknown>;
  if (typeof r.key_id !== "string" || typeof r.public_key !== "string") return null;
  return r as unknown as GenesisPayload;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** True when a rotation payload's new key matches its id and its proof verifies with that new key. */
export function rotationProofValid(r: RotationPayload, crypto: AuditCrypto): boolean {
  return keyIdOf(r.new_public_key, crypto) === r.new_key_id && crypto.verify(r.new_public_key, rotationProofInput(r), r.proof);
}

/**
 * Extends the trusted keys along key announcements (the genesis entry and rotation entries). Trust flows
 * forward (an authentic rotation entry signed by a trusted old key vouches for the new key) and backward
 * (a trusted new key's proof names the old key, whose public key comes from an earlier announcement and
 * must hash to that key id). A verifier holding only the current public key can therefore check the whole
 * history, and one holding only the first key can follow every rotation. Returns a new map.
 */
export function trustClosure(anchors: KeyRing, announcements: readonly AuditEntry[], crypto: AuditCrypto): Map<string, string> {
  const trusted = new Map(anchors);
  const published = new Map<string, string>();
  const links: { entry: AuditEntry; r: RotationPayload }[] = [];
  for (const e of announcements) {
    if (e.kind === KIND_GENESIS) {
      const g = parseGenesis(e.payload);
      if (g !== null && keyIdOf(g.public_key, crypto) === g.key_id) published.set(g.key_id, g.public_key);
    } else if (e.kind === KIND_KEY_ROTATION) {
      const r = parseRotation(e.payload);
      if (r !== null && r.old_key_id === e.key_id && rotationProofValid(r, crypto)) {
        published.set(r.new_key_id, r.new_public_key);
        links.push({ entry: e, r });
      }
    }
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const { entry, r } of links) {
      if (trusted.has(r.old_key_id) && !trusted.has(r.new_key_id) && checkEntrySelf(entry, trusted, crypto, true) === null) {
        trusted.set(r.new_key_id, r.new_public_key);
        changed = true;
      }
      const oldKey = published.get(r.old_key_id);
      if (trusted.has(r.new_key_id) && !trusted.has(r.old_key_id) && oldKey !== undefined) {
        trusted.set(r.old_key_id, oldKey);
        changed = true;
      }
    }
  }
  return trusted;
}

/** Where a walk starts: at seq 1 from genesis, or after an already-trusted entry when verifying `since` a seq. */
export interface WalkStart {
  /** First seq expected. */
  seq: number;
  /** Hash of entry `seq - 1` (GENESIS_PREV_HASH for seq 1). */
  prev_hash: string;
  /** ts of entry `seq - 1` (0 for seq 1). */
  prev_ts: number;
  /** Key expected to sign entry `seq` (null for seq 1: taken from the genesis entry). */
  key_id: string | null;
}

/** The start of a full verification. */
export const CHAIN_START: WalkStart = { seq: 1, prev_hash: GENESIS_PREV_HASH, prev_ts: 0, key_id: null };

/**
 * Sequential checks over entries in storage order: seq contiguity (missing_entries / reordered), prev_hash
 * links (hash_mismatch), non-decreasing ts (reordered), the genesis entry, and which key must sign each entry
 * (bad_signature when a different key signed). Records only the first fault, except that a gap later filled
 * by an out-of-place entry is reclassified from missing_entries to reordered. Also remembers the stored hash
 * at each seq in `wanted` (checkpoint seqs).
 */
export class ChainWalker {
  private expected: number;
  private prevHash: string;
  private prevTs: number;
  private activeKey: string | null;
  private pos = 0;
  private fault: Fault | null = null;
  private gap: { from: number; to: number } | null = null;
  /** Seq of the last entry seen in order (start.seq - 1 if none). */
  lastSeq: number;
  /** Stored hashes at the seqs asked for in `wanted`. */
  readonly hashesAt = new Map<number, string>();

  constructor(
    start: WalkStart,
    private readonly crypto: AuditCrypto,
    private readonly wanted: ReadonlySet<number> = new Set(),
  ) {
    this.expected = start.seq;
    this.prevHash = start.prev_hash;
    this.prevTs = start.prev_ts;
    this.activeKey = start.key_id;
    this.lastSeq = start.seq - 1;
  }

  /** The first fault found so far, or null. */
  get firstFault(): Fault | null {
    return this.fault;
  }

  /** Number of entries pushed. */
  get count(): number {
    return this.pos;
  }

  /** Where the walk stands: the last in-order entry's seq, hash and ts, and the key expected to sign the next one. */
  get head(): { seq: number; hash: string; ts: number; key_id: string | null } {
    return { seq: this.lastSeq, hash: this.prevHash, ts: this.prevTs, key_id: this.activeKey };
  }

  /** Feeds the next entry in storage order; `pos` is its storage position (default: how many were pushed before). */
  push(e: AuditEntry, pos: number = this.pos): void {
    this.pos++;
    if (this.fault !== null) {
      if (this.gap !== null && this.fault.reason === "missing_entries" && e.seq >= this.gap.from && e.seq <= this.gap.to) {
        this.fault = { ...this.fault, reason: "reordered", detail: `entry ${this.fault.seq} is stored out of order` };
      }
      return;
    }
    if (e.seq !== this.expected) {
      if (e.seq > this.expected) {
        this.gap = { from: this.expected, to: e.seq - 1 };
        this.fail(pos, this.expected, "missing_entries", `entries ${this.expected}..${e.seq - 1} are missing`);
      } else {
        this.fail(pos, e.seq, "reordered", `entry ${e.seq} appears after entry ${this.expected - 1}`);
      }
      return;
    }
    if (e.prev_hash !== this.prevHash) {
      this.fail(pos, e.seq, "hash_mismatch", `entry ${e.seq}: prev_hash does not match the hash of entry ${e.seq - 1}`);
      return;
    }
    if (e.ts < this.prevTs) {
      this.fail(pos, e.seq, "reordered", `entry ${e.seq}: timestamp is earlier than entry ${e.seq - 1}'s`);
      return;
    }
    if (e.seq === 1) {
      const g = e.kind === KIND_GENESIS ? parseGenesis(e.payload) : null;
      if (g?.key_id !== e.key_id) {
        this.fail(pos, 1, "bad_signature", "entry 1 is not a genesis entry naming its own signing key");
        return;
      }
      this.activeKey = e.key_id;
    } else if (this.activeKey !== null && e.key_id !== this.activeKey) {
      this.fail(pos, e.seq, "bad_signature", `entry ${e.seq}: signed by key ${e.key_id} but key ${this.activeKey} was active`);
      return;
    }
    if (this.activeKey === null) this.activeKey = e.key_id;
    if (e.kind === KIND_KEY_ROTATION) {
      const r = parseRotation(e.payload);
      if (r === null || r.old_key_id !== e.key_id || !rotationProofValid(r, this.crypto)) {
        this.fail(pos, e.seq, "bad_signature", `entry ${e.seq}: key rotation is malformed or its proof does not verify`);
        return;
      }
      this.activeKey = r.new_key_id;
    }
    if (this.wanted.has(e.seq)) this.hashesAt.set(e.seq, e.hash);
    this.expected = e.seq + 1;
    this.prevHash = e.hash;
    this.prevTs = e.ts;
    this.lastSeq = e.seq;
  }

  private fail(pos: number, seq: number, reason: BrokenReason, detail: string): void {
    this.fault = { pos, seq, reason, detail };
  }
}

/**
 * Checks checkpoints against the walked chain: each must carry a valid signature by a trusted key
 * (bad_signature), must not lie beyond the last entry (truncated: entries after `lastSeq` were removed), and
 * must match the stored hash at its seq (hash_mismatch). Checkpoints below `fromSeq` are skipped (they
 * precede a `since` verification). `anchored_seq` is the highest checkpoint seq that passed.
 */
export function checkCheckpoints(
  checkpoints: readonly Checkpoint[],
  ctx: { keys: KeyRing; crypto: AuditCrypto; lastSeq: number; fromSeq: number; hashesAt: ReadonlyMap<number, string>; signatures?: boolean; witnesses?: readonly Witness[] },
): { faults: Fault[]; anchored_seq: number } {
  const faults: Fault[] = [];
  let anchored = 0;
  // Witnesses need no signature: whoever holds one got it from the daemon at approval or execution time.
  for (const w of ctx.witnesses ?? []) {
    if (w.seq > ctx.lastSeq) faults.push({ pos: Infinity, seq: ctx.lastSeq + 1, reason: "truncated", detail: `a witness names seq ${w.seq} but the chain ends at seq ${ctx.lastSeq}` });
    else if (w.seq >= ctx.fromSeq && ctx.hashesAt.get(w.seq) !== w.hash) faults.push({ pos: Infinity, seq: w.seq, reason: "hash_mismatch", detail: `witness at seq ${w.seq}: the chain's hash there differs from the witness` });
  }
  for (const cp of checkpoints) {
    if (cp.seq < ctx.fromSeq) continue;
    const key = ctx.keys.get(cp.key_id);
    if (ctx.signatures !== false && (key === undefined || !ctx.crypto.verify(key, checkpointSignatureInput(cp), cp.signature))) {
      faults.push({ pos: Infinity, seq: cp.seq, reason: "bad_signature", detail: `checkpoint at seq ${cp.seq}: signature does not verify with a trusted key` });
    } else if (cp.seq > ctx.lastSeq) {
      faults.push({ pos: Infinity, seq: ctx.lastSeq + 1, reason: "truncated", detail: `a signed checkpoint covers seq ${cp.seq} but the chain ends at seq ${ctx.lastSeq}` });
    } else if (ctx.hashesAt.get(cp.seq) !== cp.hash) {
      faults.push({ pos: Infinity, seq: cp.seq, reason: "hash_mismatch", detail: `checkpoint at seq ${cp.seq}: chain hash differs from the signed checkpoint` });
    } else if (cp.seq > anchored) {
      anchored = cp.seq;
    }
  }
  return { faults, anchored_seq: anchored };
}

/** A verified stretch of storage (one worker's range): its ends, the key active after it, and any fault inside. */
export interface RangeSummary {
  /** The first entry's link fields (null for an empty range). */
  first: { seq: number; prev_hash: string; ts: number; key_id: string } | null;
  /** The walker head after the range. */
  last: { seq: number; hash: string; ts: number; key_id: string | null };
  fault: Fault | null;
}

/**
 * True when consecutive ranges (each walked from its own first entry) join into one chain after `start`: each
 * range's first entry follows the previous range's last entry (seq, prev_hash, ts, signing key) and no range has a
 * fault. When false, the caller re-walks sequentially to find the exact first fault.
 */
export function rangesJoin(start: WalkStart, ranges: readonly RangeSummary[]): boolean {
  let prev = { seq: start.seq - 1, hash: start.prev_hash, ts: start.prev_ts, key_id: start.key_id };
  for (const r of ranges) {
    if (r.fault !== null) return false;
    if (r.first === null) continue;
    if (r.first.seq !== prev.seq + 1 || r.first.prev_hash !== prev.hash || r.first.ts < prev.ts) return false;
    if (r.first.seq !== 1 && prev.key_id !== null && r.first.key_id !== prev.key_id) return false;
    prev = r.last;
  }
  return true;
}

/** Picks the first fault: lowest storage position, then lowest seq; chain faults always precede checkpoint faults. */
export function firstFault(faults: readonly Fault[]): Fault | null {
  let best: Fault | null = null;
  for (const f of faults) if (best === null || f.pos < best.pos || (f.pos === best.pos && f.seq < best.seq)) best = f;
  return best;
}

/** Builds the final result from all faults found and the walk's outcome. */
export function verifyResult(faults: readonly Fault[], walked: { lastSeq: number; count: number }, anchored: number, signatures: boolean): VerifyResult {
  const f = firstFault(faults);
  if (f !== null) return { status: "broken", reason: f.reason, first_bad_seq: f.seq, detail: f.detail };
  return { status: "intact", anchored_seq: anchored, last_seq: walked.lastSeq, checked: walked.count, signatures_checked: signatures };
}

/** Input of {@link verifyEntries}. `announcements` default to the genesis and rotation entries among `entries`. */
export interface VerifyInput {
  entries: readonly AuditEntry[];
  checkpoints: readonly Checkpoint[];
  trusted: KeyRing;
  crypto: AuditCrypto;
  start?: WalkStart;
  announcements?: readonly AuditEntry[];
  /** (seq, hash) pairs the chain must contain (see {@link Witness}). */
  witnesses?: readonly Witness[];
  /** false = hash-only check (links and hashes, no signatures): fast, but not proof of authorship. */
  signatures?: boolean;
}

/** Verifies a chain held in memory, in one thread. */
export function verifyEntries(input: VerifyInput): VerifyResult {
  const signatures = input.signatures ?? true;
  if (signatures && input.trusted.size === 0) return { status: "cannot_verify", why: "no_key", detail: "no trusted public key was given" };
  const start = input.start ?? CHAIN_START;
  const announcements = input.announcements ?? input.entries.filter((e) => e.kind === KIND_GENESIS || e.kind === KIND_KEY_ROTATION);
  const keys = trustClosure(input.trusted, announcements, input.crypto);
  const walker = new ChainWalker(start, input.crypto, new Set([...input.checkpoints.map((c) => c.seq), ...(input.witnesses ?? []).map((w) => w.seq)]));
  const faults: Fault[] = [];
  input.entries.forEach((e, pos) => {
    walker.push(e);
    const f = checkEntrySelf(e, keys, input.crypto, signatures);
    if (f !== null) faults.push({ ...f, pos });
  });
  if (walker.firstFault !== null) faults.push(walker.firstFault);
  const chainFault = firstFault(faults);
  if (chainFault !== null) return verifyResult([chainFault], walker, 0, signatures);
  const cps = checkCheckpoints(input.checkpoints, { keys, crypto: input.crypto, lastSeq: walker.lastSeq, fromSeq: start.seq, hashesAt: walker.hashesAt, signatures, witnesses: input.witnesses });
  return verifyResult(cps.faults, walker, cps.anchored_seq, signatures);
}
