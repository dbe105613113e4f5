/**
 * The WebAuthn ceremonies (issue 23), implemented by adapters/webauthn.ts over @simplewebauthn/server. The JSON
 * shapes are the W3C WebAuthn "JSON" encodings (base64url strings) the browser's `toJSON()` / @simplewebauthn/browser
 * produce; they are declared here loosely (the library's types are structurally compatible) because the use cases
 * may not import the library. User verification is always required.
 */
export interface WebAuthn {
  /** Options for navigator.credentials.create: `challenge` (base64url) chosen by the caller; `exclude`: enrolled credential ids. */
  registrationOptions(rp: RelyingParty, input: { name: string; challenge: string; exclude: readonly { id: string; transports: readonly string[] }[] }): Promise<PublicKeyCredentialCreationOptionsJSON>;
  /**
   * Verifies a registration against `expected_challenge`, the RP's origin and id, with user verification.
   * Throws an Error saying why when it does not verify.
   */
  verifyRegistration(rp: RelyingParty, response: RegistrationResponseJSON, expectedChallenge: string): Promise<VerifiedRegistration>;
  /** Options for navigator.credentials.get: `challenge` (base64url) chosen by the caller, limited to `allow`. */
  authenticationOptions(rp: RelyingParty, input: { challenge: string; allow: readonly { id: string; transports: readonly string[] }[] }): Promise<PublicKeyCredentialRequestOptionsJSON>;
  /**
   * Verifies an assertion: type `webauthn.get`, challenge, origin, rpIdHash, user presence AND user verification
   * flags, the signature over authenticatorData ‖ SHA-256(clientDataJSON) with `credential.public_key` (COSE,
   * base64url), and the signature counter against `credential.counter` (0 = do not compare). Throws an Error
   * saying why when it does not verify.
   */
  verifyAuthentication(rp: { id: string; origin: string }, response: AuthenticationResponseJSON, expectedChallenge: string, credential: { credential_id: string; public_key: string; counter: number }): Promise<{ new_counter: number; user_verified: boolean }>;
}

/** The WebAuthn relying party: `id` "localhost", `origin` "http://localhost:<port>", `name` "hostgate" (the console passes it in). */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/** A verified registration: credential id (base64url), COSE public key (base64url), counter, transports. */
export interface VerifiedRegistration {
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string[];
  user_verified: boolean;
}

/** PublicKeyCredentialCreationOptionsJSON (W3C WebAuthn L3), as the library builds it. */
export interface PublicKeyCredentialCreationOptionsJSON {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  pubKeyCredParams: { alg: number; type: "public-key" }[];
  [key: string]: unknown;
}

/** PublicKeyCredentialRequestOptionsJSON (W3C WebAuthn L3), as the library builds it. */
export interface PublicKeyCredentialRequestOptionsJSON {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string; type: "public-key"; transports?: string[] }[];
  userVerification?: "required" | "preferred" | "discouraged";
  [key: string]: unknown;
}

/** RegistrationResponseJSON: what navigator.credentials.create answers, encoded as JSON. */
export interface RegistrationResponseJSON {
  id: string;
  rawId: string;
  type: "public-key";
  response: { clientDataJSON: string; attestationObject: string; transports?: string[]; authenticatorData?: string; publicKey?: string; publicKeyAlgorithm?: number };
  clientExtensionResults: object;
  authenticatorAttachment?: string;
}

/** AuthenticationResponseJSON: what navigator.credentials.get answers, encoded as JSON. */
export interface AuthenticationResponseJSON {
  id: string;
  rawId: string;
  type: "public-key";
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
  clientExtensionResults: object;
  authenticatorAttachment?: string;
}
