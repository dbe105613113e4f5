import { describe, expect, it } from "vitest";
import { createPrivateKey, createPublicKey, sign } from "node:crypto";
import fc from "fast-check";
import { canonicalBytes, canonicalJson } from "../../src/core/audit/canonical.ts";
import type { JsonValue } from "../../src/core/audit/canonical.ts";
import { checkpointSignatureInput, entryHash, entryHashPreimage, entrySignatureInput, keyIdOf, rotationProofInput } from "../../src/core/audit/entry.ts";
import { nodeAuditCrypto, rawPublicKey } from "../../src/adapters/signer-ed25519.ts";

// Golden values, pinned as literals (docs/audit-format.md). The hash was cross-checked with `sha256sum` over the
// preimage text, and the key id and public key with `openssl pkey -pubout`. Changing any of them is a format break.
const SEED_PKCS8 = "302e020100300506032b657004220420" + "07".repeat(32); // Ed25519 key whose seed is 32 bytes of 0x07
const key = createPrivateKey({ key: Buffer.from(SEED_PKCS8, "hex"), format: "der", type: "pkcs8" });
const PUBLIC_KEY = "6kpsY-KcUgq-9VB7Ey7F-ZVHdq6-vnuSQh7qaRRG0iw";
const KEY_ID = "fe812c12f3ab4ce6";
const PAYLOAD = '{"action":"RestartService","list":[1,"é",{"a":2,"b":1}],"n":3,"none":null,"ok":true,"unit":"nginx.service"}';
const BODY = { seq: 2, ts: 1700000000000, kind: "execute.intent", actor: "uid:1000", payload: PAYLOAD, prev_hash: "ab".repeat(32), key_id: KEY_ID };
const PREIMAGE =
  '{"actor":"uid:1000","key_id":"fe812c12f3ab4ce6","kind":"execute.intent","payload":{"action":"RestartService","list":[1,"é",{"a":2,"b":1}],"n":3,"none":null,"ok":true,"unit":"nginx.service"},"prev_hash":"abababababababababababababababababababababababababababababababab","seq":2,"ts":1700000000000,"v":1}';
const HASH = "1047e4d65126cfb4ac056e93ed36ffb69e7fd21b5d55ef47ba663125811bed77";
const SIGNATURE = "sfCQqA9QdIQLGlFlsUDvbADsgmArqxJKCnvNiTAach54-0Jmql1Rd-rajgczfgxEPp7WTTWCzByRq2HAmRsoBQ";
const CHECKPOINT_SIGNATURE = "rhFTRJEXdcjqv5lUi4vEsBbv_6fKVBM1N2NfkybsZXX-7ty74Tbit-TXJ0SfYstQfBpWV_xkShtGSvzECl7bAQ";

describe("golden values of format v1", () => {
  it("public key and key id", () => {
    expect(rawPublicKey(createPublicKey(key))).toBe(PUBLIC_KEY);
    expect(keyIdOf(PUBLIC_KEY, nodeAuditCrypto)).toBe(KEY_ID);
  });
  it("canonical payload", () => {
    expect(canonicalJson({ unit: "nginx.service", action: "RestartService", n: 3, ok: true, none: null, list: [1, "é", { b: 1, a: 2 }] })).toBe(PAYLOAD);
  });
  it("entry hash preimage and hash", () => {
    expect(Buffer.from(entryHashPreimage(BODY)).toString("utf8")).toBe(PREIMAGE);
    expect(entryHash(BODY, nodeAuditCrypto)).toBe(HASH);
  });
  it("entry signature input and signature (Ed25519 is deterministic)", () => {
    expect(Buffer.from(entrySignatureInput(HASH)).toString("utf8")).toBe(`hostgate-audit-entry-v1\n${HASH}`);
    expect(sign(null, entrySignatureInput(HASH), key).toString("base64url")).toBe(SIGNATURE);
    expect(nodeAuditCrypto.verify(PUBLIC_KEY, entrySignatureInput(HASH), SIGNATURE)).toBe(true);
  });
  it("checkpoint signature input and signature", () => {
    const cp = { seq: 2, hash: HASH, ts: 1700000000500, key_id: KEY_ID };
    expect(Buffer.from(checkpointSignatureInput(cp)).toString("utf8")).toBe(
      `hostgate-audit-checkpoint-v1\n{"hash":"${HASH}","key_id":"fe812c12f3ab4ce6","seq":2,"ts":1700000000500,"v":1}`,
    );
    expect(sign(null, checkpointSignatureInput(cp), key).toString("base64url")).toBe(CHECKPOINT_SIGNATURE);
  });
  it("rotation proof input", () => {
    expect(Buffer.from(rotationProofInput({ old_key_id: "0011223344556677", new_key_id: KEY_ID, new_public_key: PUBLIC_KEY })).toString("utf8")).toBe(
      `hostgate-audit-rotation-v1\n{"new_key_id":"fe812c12f3ab4ce6","new_public_key":"${PUBLIC_KEY}","old_key_id":"0011223344556677","v":1}`,
    );
  });
});

const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof({ depthSize: "small" }, fc.constant(null), fc.boolean(), fc.maxSafeInteger(), fc.string({ unit: "grapheme" }), fc.array(tie("v"), { maxLength: 3 }), fc.dictionary(fc.string(), tie("v"), { maxKeys: 3 })),
})).v;

describe("hash preimage property", () => {
  it("equals the canonical bytes of the whole entry object for any payload, kind and actor", () => {
    fc.assert(
      fc.property(jsonValue, fc.string(), fc.string({ unit: "binary" }), fc.nat(), fc.nat(), (payload, kind, actor, seq, ts) => {
        const body = { ...BODY, kind, actor, seq, ts, payload: canonicalJson(payload) };
        const whole = canonicalBytes({ actor, key_id: KEY_ID, kind, payload, prev_hash: BODY.prev_hash, seq, ts, v: 1 });
        expect(Buffer.from(entryHashPreimage(body)).equals(Buffer.from(whole))).toBe(true);
      }),
    );
  });
});
