/**
 * TEST-ONLY software passkey (issue 23): an ES256 key pair that makes WebAuthn assertions in Node, so the
 * console's approve endpoint can be driven without a browser (bench/console.ts, HTTP tests). Builds what a
 * platform authenticator would: authenticatorData (rpIdHash, flags UP|UV, counter), clientDataJSON
 * (`webauthn.get`, the challenge, the origin) and an ECDSA-SHA256 signature over both.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import type { AuthenticationResponseJSON, WebAuthnCredential } from "@simplewebauthn/server";

const b64url = (b: Uint8Array): string => Buffer.from(b).toString("base64url");

/** A software authenticator holding one credential. */
export function softAuthenticator(): { credential: WebAuthnCredential; assert(challenge: string, origin: string, rpId: string): AuthenticationResponseJSON } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const x = Buffer.from(jwk.x!, "base64url");
  const y = Buffer.from(jwk.y!, "base64url");
  // COSE_Key (RFC 9053): {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}, CBOR by hand.
  const cose = Buffer.concat([Buffer.from([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20]), x, Buffer.from([0x22, 0x58, 0x20]), y]);
  const id = b64url(randomBytes(16));
  let counter = 0;
  return {
    credential: { id, publicKey: new Uint8Array(cose), counter: 0, transports: ["internal"] },
    assert: (challenge, origin, rpId) => {
      counter++;
      const authData = Buffer.concat([createHash("sha256").update(rpId).digest(), Buffer.from([0x05]), Buffer.from([counter >>> 24, (counter >>> 16) & 0xff, (counter >>> 8) & 0xff, counter & 0xff])]);
      const clientData = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge, origin, crossOrigin: false }));
      const signature = sign("sha256", Buffer.concat([authData, createHash("sha256").update(clientData).digest()]), privateKey);
      return { id, rawId: id, type: "public-key", response: { clientDataJSON: b64url(clientData), authenticatorData: b64url(authData), signature: b64url(signature) }, clientExtensionResults: {} };
    },
  };
}
