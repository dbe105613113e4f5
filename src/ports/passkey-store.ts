/**
 * Enrolled passkeys and the daemon's outstanding WebAuthn challenges (issue 23), in the state database
 * (adapters/passkey-sqlite.ts, migration 006). Times are ms since the epoch. Every state change is a
 * compare-and-set committed before the call returns, so a challenge is used at most once even across processes.
 */
export interface PasskeyStore {
  /** Active (not revoked) passkeys, oldest first. */
  list(): PasskeyRecord[];
  /** One passkey by credential id (base64url), revoked or not; null when never enrolled. */
  get(credentialId: string): PasskeyRecord | null;
  /** Stores a new passkey. Throws HostgateError `invalid_params` when the credential id is already enrolled. */
  add(record: Omit<PasskeyRecord, "last_used_at" | "revoked_at">): void;
  /** Marks a passkey revoked at `now`; false when it is unknown or already revoked. */
  revoke(credentialId: string, now: number): boolean;
  /**
   * Records a use: the signature counter moves to `counter` and last_used_at to `now`. Wins only when the passkey is
   * active and the counter moves forward (or both are 0: authenticators without a counter); false otherwise.
   */
  recordUse(credentialId: string, counter: number, now: number): boolean;
  /** Holds a challenge until it is used once or expires. */
  putChallenge(c: StoredChallenge): void;
  /** The challenge if it exists, has this purpose, is unused and unexpired at `now`; null otherwise. */
  findChallenge(challenge: string, purpose: ChallengePurpose, now: number): StoredChallenge | null;
  /** Uses a challenge: wins (true) once, only while unused and unexpired at `now`. */
  useChallenge(challenge: string, now: number): boolean;
  close(): void;
}

/** One enrolled passkey. `public_key`: the credential's COSE public key, base64url. */
export interface PasskeyRecord {
  credential_id: string;
  name: string;
  public_key: string;
  counter: number;
  /** Transports the browser reported at enrollment (hints for allowCredentials). */
  transports: string[];
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** What a challenge may be used for. `enroll`: a registration; `enroll_existing`: the assertion that vouches for a second passkey; `approve`: a plan's approval. */
export type ChallengePurpose = "enroll" | "enroll_existing" | "approve";

/** One outstanding challenge (base64url). `plan_id` and `nonce` only for `approve`; `name` only for `enroll`. */
export interface StoredChallenge {
  challenge: string;
  purpose: ChallengePurpose;
  plan_id: string | null;
  nonce: string | null;
  name: string | null;
  created_at: number;
  expires_at: number;
}
