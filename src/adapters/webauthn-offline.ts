import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";
import type { RecordedAssertionVerifier } from "../core/audit/passkeys.ts";

/**
 * The offline verifier `hostgate audit verify` uses for passkey approvals (core/audit/passkeys.ts): the checks of
 * a live approval (WebAuthn L3 §7.2 steps for an assertion: clientDataJSON type `webauthn.get`, challenge, origin;
 * authenticatorData's rpIdHash = SHA-256(rp_id), flags UP and UV; the signature over authenticatorData ‖
 * SHA-256(clientDataJSON)) done with node:crypto and each public key decoded once, so a chain of many approvals
 * verifies fast (bench/passkey-verify.ts) and without loading the WebAuthn library (this module is bundled into
 * whatever verifies a chain). Keys: ES256 (EC2 P-256), EdDSA (OKP Ed25519) and RS256, the algorithms enrollment
 * accepts (adapters/webauthn.ts SUPPORTED_ALGORITHMS); any other key is reported as not verifiable. The counter is
 * not compared. Returns a verifier with its own key cache. test/audit/passkey-offline.test.ts checks it agrees
 * with the library case by case.
 */
export function offlineAssertionVerifier(): RecordedAssertionVerifier {
  const keys = new Map<string, { key: KeyObject; hash: "sha256" | null } | null>();
  return (a) => Promise.resolve(check(a));
  function check(a: Parameters<RecordedAssertionVerifier>[0]): string | null {
    let entry = keys.get(a.public_key);
    if (entry === undefined) {
      entry = keyOf(a.public_key);
      keys.set(a.public_key, entry);
    }
    if (entry === null) return "the enrolled public key is not an ES256, EdDSA or RS256 COSE key";
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
  }
}

/** A COSE public key (base64url) as a node KeyObject with its hash, or null when it is not one this verifier knows. */
function keyOf(cose: string): { key: KeyObject; hash: "sha256" | null } | null {
  try {
    const k = decodeCoseKey(Buffer.from(cose, "base64url"));
    const [kty, alg] = [k.get(1), k.get(3)];
    const b = (n: number): string => Buffer.from(k.get(n) as Uint8Array).toString("base64url");
    if (kty === 2 && alg === -7 && k.get(-1) === 1) return { key: createPublicKey({ key: { kty: "EC", crv: "P-256", x: b(-2), y: b(-3) }, format: "jwk" }), hash: "sha256" };
    if (kty === 1 && alg === -8 && k.get(-1) === 6) return { key: createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: b(-2) }, format: "jwk" }), hash: null };
    if (kty === 3 && alg === -257) return { key: createPublicKey({ key: { kty: "RSA", n: b(-1), e: b(-2) }, format: "jwk" }), hash: "sha256" };
  } catch {
    // not a key this verifier knows
  }
  return null;
}

/**
 * A COSE_Key (RFC 9052 §7): one CBOR map with integer labels and integer or byte-string values, the only shape
 * an EC2, OKP or RSA public key has. Throws on anything else (indefinite lengths, other types, trailing bytes).
 */
export function decodeCoseKey(bytes: Uint8Array): Map<number, number | Uint8Array> {
  let at = 0;
  const head = (): { major: number; n: number } => {
    const b = bytes[at++];
    if (b === undefined) throw new Error("truncated COSE key");
    const major = b >> 5;
    const info = b & 31;
    if (info < 24) return { major, n: info };
    const len = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : 0;
    if (len === 0 || at + len > bytes.length) throw new Error("unsupported CBOR length in COSE key");
    let n = 0;
    for (let i = 0; i < len; i++) n = n * 256 + bytes[at++]!;
    return { major, n };
  };
  const item = (): number | Uint8Array => {
    const { major, n } = head();
    if (major === 0) return n;
    if (major === 1) return -1 - n;
    if (major === 2) {
      if (at + n > bytes.length) throw new Error("truncated COSE key");
      const v = bytes.subarray(at, at + n);
      at += n;
      return v;
    }
    throw new Error(`unexpected CBOR major type ${major} in COSE key`);
  };
  const { major, n } = head();
  if (major !== 5) throw new Error("a COSE key is a CBOR map");
  const out = new Map<number, number | Uint8Array>();
  for (let i = 0; i < n; i++) {
    const label = item();
    if (typeof label !== "number") throw new Error("COSE key labels are integers");
    out.set(label, item());
  }
  if (at !== bytes.length) throw new Error("trailing bytes after the COSE key");
  return out;
}
