import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { verifyEntries } from "../../src/core/audit/verify.ts";
import { KIND_KEY_ROTATION, rotationProofInput } from "../../src/core/audit/entry.ts";
import type { AuditEntry, Checkpoint } from "../../src/core/audit/entry.ts";
import { sign } from "node:crypto";
import { nodeAuditCrypto } from "../../src/adapters/signer-ed25519.ts";
import { attackerKey, forgeCheckpoint, forgeEntry, forgeGenesis } from "./helpers.ts";

// One honest chain of 30 entries with checkpoints at 10, 20 and 25; each property run mutates a copy.
const key = attackerKey(); // "attacker" only by name here: it is the trusted key of this chain
const chain: AuditEntry[] = [forgeGenesis(key)];
while (chain.length < 30) chain.push(forgeEntry(chain.at(-1)!, key, "step", { n: chain.length + 1, note: `entry ${chain.length + 1}` }));
const checkpoints: Checkpoint[] = [10, 20, 25].map((s) => forgeCheckpoint(chain[s - 1]!, key));
const trusted = new Map([[key.keyId, key.publicKey]]);
const verify = (entries: AuditEntry[], cps = checkpoints) => verifyEntries({ entries, checkpoints: cps, trusted, crypto: nodeAuditCrypto });
const seqArb = fc.integer({ min: 1, max: 30 });

describe("verification properties", () => {
  it("the honest chain is intact and anchored at its highest checkpoint", () => {
    expect(verify(chain)).toMatchObject({ status: "intact", last_seq: 30, anchored_seq: 25, checked: 30 });
  });

  it("any changed payload is a hash_mismatch at exactly that seq", () => {
    fc.assert(fc.property(seqArb, fc.string({ minLength: 1 }), (k, text) => {
      const copy = chain.map((e) => ({ ...e }));
      const payload = JSON.parse(copy[k - 1]!.payload) as Record<string, unknown>;
      payload.note = `${String(payload.note)}${text}`;
      copy[k - 1]!.payload = JSON.stringify(payload);
      expect(verify(copy)).toMatchObject({ status: "broken", reason: "hash_mismatch", first_bad_seq: k });
    }));
  });

  it("any changed signature byte is a bad_signature at exactly that seq", () => {
    fc.assert(fc.property(seqArb, fc.integer({ min: 0, max: 63 }), fc.integer({ min: 1, max: 255 }), (k, at, x) => {
      const copy = chain.map((e) => ({ ...e }));
      const sig = Buffer.from(copy[k - 1]!.signature, "base64url");
      sig[at] = sig[at]! ^ x;
      copy[k - 1]!.signature = sig.toString("base64url");
      expect(verify(copy)).toMatchObject({ status: "broken", reason: "bad_signature", first_bad_seq: k });
    }));
  });

  it("deleting any entry but the last is missing_entries at that seq", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 29 }), (k) => {
      expect(verify(chain.filter((e) => e.seq !== k))).toMatchObject({ status: "broken", reason: "missing_entries", first_bad_seq: k });
    }));
  });

  it("swapping any two entries is reordered at the lower seq", () => {
    fc.assert(fc.property(seqArb, seqArb, (a, b) => {
      fc.pre(a !== b);
      const copy = [...chain];
      [copy[a - 1], copy[b - 1]] = [copy[b - 1]!, copy[a - 1]!];
      expect(verify(copy)).toMatchObject({ status: "broken", reason: "reordered", first_bad_seq: Math.min(a, b) });
    }));
  });

  it("cutting the tail below a checkpoint is truncated; above the last checkpoint it cannot be seen", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 29 }), (m) => {
      const r = verify(chain.slice(0, m));
      if (m < 25) expect(r).toMatchObject({ status: "broken", reason: "truncated", first_bad_seq: m + 1 });
      else expect(r).toMatchObject({ status: "intact", last_seq: m, anchored_seq: 25 });
    }));
  });

  it("without keys verification cannot conclude; hash-only mode still detects content changes", () => {
    expect(verifyEntries({ entries: chain, checkpoints, trusted: new Map(), crypto: nodeAuditCrypto })).toMatchObject({ status: "cannot_verify", why: "no_key" });
    fc.assert(fc.property(seqArb, (k) => {
      const copy = chain.map((e) => ({ ...e }));
      copy[k - 1]!.actor = "someone else";
      expect(verifyEntries({ entries: copy, checkpoints, trusted: new Map(), crypto: nodeAuditCrypto, signatures: false })).toMatchObject({ status: "broken", reason: "hash_mismatch", first_bad_seq: k });
    }));
  });
});

describe("key schedule", () => {
  it("after a rotation, an entry signed by the retired (still trusted) key is a bad_signature", () => {
    const a = attackerKey();
    const b = attackerKey();
    const proofBody = { old_key_id: a.keyId, new_key_id: b.keyId, new_public_key: b.publicKey };
    const proof = sign(null, rotationProofInput(proofBody), b.key).toString("base64url");
    const g = forgeGenesis(a);
    const e2 = forgeEntry(g, a, "step", { n: 2 });
    const rot = forgeEntry(e2, a, KIND_KEY_ROTATION, { ...proofBody, proof });
    const e4 = forgeEntry(rot, b, "step", { n: 4 });
    const onlyA = new Map([[a.keyId, a.publicKey]]);
    expect(verifyEntries({ entries: [g, e2, rot, e4], checkpoints: [], trusted: onlyA, crypto: nodeAuditCrypto })).toMatchObject({ status: "intact", last_seq: 4 });
    const stale = forgeEntry(rot, a, "step", { n: 4 });
    expect(verifyEntries({ entries: [g, e2, rot, stale], checkpoints: [], trusted: onlyA, crypto: nodeAuditCrypto })).toMatchObject({ status: "broken", reason: "bad_signature", first_bad_seq: 4 });
    const badProof = forgeEntry(e2, a, KIND_KEY_ROTATION, { ...proofBody, proof: sign(null, rotationProofInput(proofBody), a.key).toString("base64url") });
    expect(verifyEntries({ entries: [g, e2, badProof], checkpoints: [], trusted: onlyA, crypto: nodeAuditCrypto })).toMatchObject({ status: "broken", reason: "bad_signature", first_bad_seq: 3 });
  });
});
