import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";
import { decodeCredentialPublicKey } from "@simplewebauthn/server/helpers";
import type { RecordedAssertionVerifier } from "../core/audit/passkeys.ts";
import { verifyRecordedAssertion } from "./webauthn.ts";

/**
 * The offline verifier `hostgate audit verify` uses for passkey approvals (core/audit/passkeys.ts): the checks of
 * a live approval (WebAuthn L3 §7.2 steps for an assertion: clientDataJSON type `webauthn.get`, challenge, origin;
 * authenticatorData's rpIdHash = SHA-256(rp_id), flags UP and UV; the signature over authenticatorData ‖
 * SHA-256(clientDataJSON)) done with node:crypto and each public key decoded once, so a chain of many approvals
 * verifies fast (bench/passkey-verify.ts). Keys: ES256 (EC2 P-256), EdDSA (OKP Ed25519) and RS256; any other
 * algorithm goes to the library's own check (adapters/webauthn.ts verifyRecordedAssertion). The counter is not
 * compared. Returns a verifier with its own key cache.
 */
export function offlineAssertionVerifier(): RecordedAssertionVerifier {
  const keys = new Map<string, { key: KeyObject; hash: "sha256" | null } | null>();
  return async (a) => {
    let entry = keys.get(a.public_key);
    if (entry === undefined) {
      entry = keyOf(a.public_key);
      keys.set(a.public_key, entry);
    }
    if (entry === null) return verifyRecordedAssertion(a);
    let client: { type?: unknown; challenge?: unknown; origin?: unknown; crossOrigin?: unknown };
    const clientBytes = Buffer.from(a.client_data_json, "base64url");
    try {
      client = JSON.parse(clientBytes.toString("utf8")) as typeof client;
    } catch {
      return "clientDataJSON is not JSON";
    }
    if (client.type !== "webauthn.get") return `unexpected clientDataJSON type ${JSON.stringify(client.type)}`;
    if (client.challenge !== a.challenge) return "the challenge signed is not the one derived from this entry's plan, steps and nonce";
    if (client.origin !== a.origin) return `unexpected origin ${JSON.stringify(client.origin)}, expected ${JSON.stringify(a.origin)}`;
    if (client.crossOrigin === true) return "a cross-origin assertion";
    const host = /^https?:\/\/([^/:]+)(?::\d+)?$/.exec(a.origin)?.[1];
    if (host !== a.rp_id) return `the origin ${a.origin} is not on the relying party ${a.rp_id}`;
    const auth = Buffer.from(a.authenticator_data, "base64url");
    if (auth.length < 37) return "authenticatorData is too short";
    if (!auth.subarray(0, 32).equals(createHash("sha256").update(a.rp_id, "utf8").digest())) return `the rpIdHash is not SHA-256 of ${a.rp_id}`;
    const flags = auth[32]!;
    if ((flags & 0x01) === 0) return "user not present";
    if ((flags & 0x04) === 0) return "user not verified";
    const signed = Buffer.concat([auth, createHash("sha256").update(clientBytes).digest()]);
    const ok = verify(entry.hash, signed, entry.key, Buffer.from(a.signature, "base64url"));
    return ok ? null : "the signature does not verify with the enrolled public key";
  };
}

/** A COSE public key (base64url) as a node KeyObject with its hash, or null for an algorithm left to the library. */
function keyOf(cose: string): { key: KeyObject; hash: "sha256" | null } | null {
  try {
    const k = decodeCredentialPublicKey(Buffer.from(cose, "base64url")) as unknown as Map<number, number | Uint8Array>;
    const [kty, alg] = [k.get(1), k.get(3)];
    const b = (n: number): string => Buffer.from(k.get(n) as Uint8Array).toString("base64url");
    if (kty === 2 && alg === -7 && k.get(-1) === 1) return { key: createPublicKey({ key: { kty: "EC", crv: "P-256", x: b(-2), y: b(-3) }, format: "jwk" }), hash: "sha256" };
    if (kty === 1 && alg === -8 && k.get(-1) === 6) return { key: createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: b(-2) }, format: "jwk" }), hash: null };
    if (kty === 3 && alg === -257) return { key: createPublicKey({ key: { kty: "RSA", n: b(-1), e: b(-2) }, format: "jwk" }), hash: "sha256" };
  } catch {
    // left to the library, which says what is wrong with the key
  }
  return null;
}
