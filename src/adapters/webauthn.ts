import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON as LibAuthenticationJSON,
  type AuthenticatorTransport,
  type RegistrationResponseJSON as LibRegistrationJSON,
} from "@simplewebauthn/server";
import type { RecordedAssertionVerifier } from "../core/audit/passkeys.ts";
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON, RelyingParty, VerifiedRegistration, WebAuthn } from "../ports/webauthn.ts";

/** COSE algorithms a passkey may use: EdDSA, ES256, RS256 (what `hostgate audit verify` re-checks offline: adapters/webauthn-offline.ts). */
export const SUPPORTED_ALGORITHMS = [-8, -7, -257];

/** Timeout the browser is asked to give the human for a ceremony (ms): the challenge lives as long (app/passkeys.ts). */
export const CEREMONY_TIMEOUT_MS = 120_000;

const b64u = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url");
const transports = (list: readonly string[]): AuthenticatorTransport[] => list as AuthenticatorTransport[];

/**
 * The WebAuthn port over @simplewebauthn/server 14: user verification required in every ceremony, attestation
 * `none` (hostgate trusts the enrollment link, not an authenticator vendor), challenges chosen by the caller.
 */
export const simpleWebAuthn: WebAuthn = {
  async registrationOptions(rp, input) {
    const options = await generateRegistrationOptions({
      rpName: rp.name, rpID: rp.id, userName: input.name, userDisplayName: input.name,
      challenge: Buffer.from(input.challenge, "base64url"), timeout: CEREMONY_TIMEOUT_MS, attestationType: "none",
      excludeCredentials: input.exclude.map((c) => ({ id: c.id, transports: transports(c.transports) })),
      authenticatorSelection: { residentKey: "preferred", userVerification: "required" }, supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
    return options as unknown as PublicKeyCredentialCreationOptionsJSON;
  },
  async verifyRegistration(rp: RelyingParty, response: RegistrationResponseJSON, expectedChallenge: string): Promise<VerifiedRegistration> {
    const r = await verifyRegistrationResponse({
      response: response as unknown as LibRegistrationJSON, expectedChallenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
    if (!r.verified) throw new Error("the registration did not verify");
    const c = r.registrationInfo.credential;
    return { credential_id: c.id, public_key: b64u(c.publicKey), counter: c.counter, transports: [...(c.transports ?? response.response.transports ?? [])], user_verified: r.registrationInfo.userVerified };
  },
  async authenticationOptions(rp, input) {
    const options = await generateAuthenticationOptions({
      rpID: rp.id, challenge: Buffer.from(input.challenge, "base64url"), timeout: CEREMONY_TIMEOUT_MS, userVerification: "required",
      allowCredentials: input.allow.map((c) => ({ id: c.id, transports: transports(c.transports) })),
    });
    return options as unknown as PublicKeyCredentialRequestOptionsJSON;
  },
  async verifyAuthentication(rp, response: AuthenticationResponseJSON, expectedChallenge, credential) {
    const r = await verifyAuthenticationResponse({
      response: response as unknown as LibAuthenticationJSON, expectedChallenge, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true,
      credential: { id: credential.credential_id, publicKey: Buffer.from(credential.public_key, "base64url"), counter: credential.counter },
    });
    if (!r.verified) throw new Error("the signature does not verify with the enrolled public key");
    return { new_counter: r.authenticationInfo.newCounter, user_verified: r.authenticationInfo.userVerified };
  },
};

/**
 * Re-verifies an assertion recorded in the audit chain (core/audit/passkeys.ts), offline: the same library
 * check as a live approval (type, challenge, origin, rpIdHash, user presence and verification, signature), with
 * the counter not compared (0). Resolves null when it verifies, else the library's reason.
 */
export const verifyRecordedAssertion: RecordedAssertionVerifier = async (a) => {
  try {
    await simpleWebAuthn.verifyAuthentication({ id: a.rp_id, origin: a.origin }, {
      id: a.credential_id, rawId: a.credential_id, type: "public-key", clientExtensionResults: {},
      response: { authenticatorData: a.authenticator_data, clientDataJSON: a.client_data_json, signature: a.signature },
    }, a.challenge, { credential_id: a.credential_id, public_key: a.public_key, counter: 0 });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
};
