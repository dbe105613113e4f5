/**
 * A software WebAuthn authenticator for tests without a browser (issue 23): a test peer, not production code.
 * It holds one P-256 key pair made with node:crypto and answers the two ceremonies the way a platform
 * authenticator behind navigator.credentials would, in the W3C "JSON" encoding (base64url fields):
 * - {@link SoftAuthenticator.register}: a RegistrationResponseJSON for PublicKeyCredentialCreationOptionsJSON,
 *   attestation format `none`; authenticatorData = SHA-256(rpId) ‖ flags (UP, UV unless `uv: false`, AT) ‖
 *   counter (big-endian u32) ‖ AAGUID (16 zero bytes) ‖ credential id length (u16) ‖ credential id ‖ COSE key
 *   (EC2, ES256: {1: 2, 3: -7, -1: 1, -2: x, -3: y}); clientDataJSON {type: "webauthn.create", challenge, origin}.
 * - {@link SoftAuthenticator.assert}: an AuthenticationResponseJSON for PublicKeyCredentialRequestOptionsJSON;
 *   authenticatorData = SHA-256(rpId) ‖ flags (UP, UV unless `uv: false`) ‖ counter (incremented each time);
 *   signature = ECDSA P-256 SHA-256, DER, over authenticatorData ‖ SHA-256(clientDataJSON).
 * The encodings follow WebAuthn Level 3 §6.1 (authenticator data), §6.5.1 (attested credential data) and
 * RFC 9052/9053 (COSE keys). Nothing here is shared with the library under test (the CBOR encoder is its own).
 * {@link softAuthenticator} (the console's bench and HTTP tests) is the same idea as a function: one credential,
 * assertions only, the relying party given per call.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type { AuthenticationResponseJSON, WebAuthnCredential } from "@simplewebauthn/server";

/** The relying party a soft authenticator answers for. */
export interface SoftRp {
  id: string;
  origin: string;
}

const b64u = (b: Uint8Array): string => Buffer.from(b).toString("base64url");
const sha256 = (b: Uint8Array | string): Buffer => createHash("sha256").update(b).digest();

/** One software authenticator with one credential. */
export class SoftAuthenticator {
  readonly credentialId: string;
  private readonly rawId: Buffer;
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  /** The signature counter the next assertion carries minus one (0 = the authenticator keeps no counter when `counting` is false). */
  counter = 0;

  /** `counting`: whether assertions carry an increasing counter (true) or always 0 (like many platform passkeys). */
  constructor(readonly rp: SoftRp, private readonly counting = true) {
    this.rawId = randomBytes(16);
    this.credentialId = b64u(this.rawId);
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  /** The credential's public key as a COSE_Key (EC2, ES256), CBOR-encoded. */
  coseKey(): Uint8Array {
    const jwk = this.publicKey.export({ format: "jwk" });
    return cbor(new Map<number, CborValue>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, "base64url")], [-3, Buffer.from(jwk.y!, "base64url")]]));
  }

  /** Answers navigator.credentials.create(options). `uv: false` clears the user-verified flag. */
  register(options: { challenge: string }, opts: { uv?: boolean; origin?: string } = {}): RegistrationJSON {
    const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.create", challenge: options.challenge, origin: opts.origin ?? this.rp.origin, crossOrigin: false }));
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(this.rawId.length);
    const authData = Buffer.concat([this.authHead(0x41 | (opts.uv === false ? 0 : 0x04), 0), Buffer.alloc(16), idLen, this.rawId, this.coseKey()]);
    const attestationObject = cbor(new Map<string, CborValue>([["fmt", "none"], ["attStmt", new Map()], ["authData", authData]]));
    return {
      id: this.credentialId, rawId: this.credentialId, type: "public-key", clientExtensionResults: {}, authenticatorAttachment: "platform",
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ["internal"] },
    };
  }

  /** Answers navigator.credentials.get(options). `uv: false` clears the user-verified flag; `origin` overrides the page origin. */
  assert(options: { challenge: string }, opts: { uv?: boolean; origin?: string } = {}): AssertionJSON {
    const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin: opts.origin ?? this.rp.origin, crossOrigin: false }));
    if (this.counting) this.counter++;
    const authData = this.authHead(0x01 | (opts.uv === false ? 0 : 0x04), this.counting ? this.counter : 0);
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.credentialId, rawId: this.credentialId, type: "public-key", clientExtensionResults: {}, authenticatorAttachment: "platform",
      response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: b64u(Buffer.from("hostgate")) },
    };
  }

  private authHead(flags: number, counter: number): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    return Buffer.concat([sha256(this.rp.id), Buffer.from([flags]), c]);
  }
}

/** RegistrationResponseJSON as the browser encodes it. */
export interface RegistrationJSON {
  id: string; rawId: string; type: "public-key"; clientExtensionResults: Record<string, unknown>; authenticatorAttachment: string;
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
}
/** AuthenticationResponseJSON as the browser encodes it. */
export interface AssertionJSON {
  id: string; rawId: string; type: "public-key"; clientExtensionResults: Record<string, unknown>; authenticatorAttachment: string;
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
}

type CborValue = number | string | Uint8Array | Map<number | string, CborValue>;

/** Minimal deterministic CBOR (RFC 8949): integers, text, byte strings and maps, all this peer needs. */
function cbor(v: CborValue): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) { const b = Buffer.alloc(3); b[0] = (major << 5) | 25; b.writeUInt16BE(n, 1); return b; }
    const b = Buffer.alloc(5); b[0] = (major << 5) | 26; b.writeUInt32BE(n, 1); return b;
  };
  if (typeof v === "number") return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === "string") { const t = Buffer.from(v, "utf8"); return Buffer.concat([head(3, t.length), t]); }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), v]);
  return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
}

/**
 * TEST-ONLY software passkey of the console's tests (bench/console.ts): an ES256 key pair that makes WebAuthn
 * assertions in Node; the credential in the library's shape, the relying party per assertion.
 */
const b64url = (b: Uint8Array): string => Buffer.from(b).toString("base64url");

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
