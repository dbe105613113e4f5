/**
 * TEST-ONLY stand-in for c23a's `src/app/passkeys.ts` (issue 23 contract): the same signatures, real WebAuthn
 * ceremonies with @simplewebauthn/server (user verification required), credentials kept in memory. It exists
 * only so the console half can be driven end to end in a real browser before the backend lands; approval goes
 * through app/approve.ts `approve` as an in-process caller, which the real backend replaces with the
 * passkey approver proof. The lead wires the real module at merge (daemon/compose.ts `passkeys`).
 */
import { createHash, randomBytes } from "node:crypto";
import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type WebAuthnCredential,
} from "@simplewebauthn/server";
import { approve } from "../../src/app/approve.ts";
import type { DaemonDeps } from "../../src/app/deps.ts";
import { HostgateError } from "../../src/core/errors.ts";
import type { PasskeyBackend, RelyingParty, ShownStep } from "../../src/daemon/console/passkey-backend.ts";

/** A stand-in backend with its own in-memory credential store. */
export function passkeysStandin(): PasskeyBackend & { credentials: Map<string, { cred: WebAuthnCredential; name: string }> } {
  const credentials = new Map<string, { cred: WebAuthnCredential; name: string; created_at: string; last_used_at: string | null }>();
  const regChallenges = new Map<string, string>();
  const enrollAssertChallenges = new Map<string, string>();
  const approvalChallenges = new Map<string, { challenge: string; steps: string }>();

  const verifyAssertion = async (rp: RelyingParty, expectedChallenge: string, assertion: AuthenticationResponseJSON): Promise<string> => {
    const known = credentials.get(assertion.id);
    if (!known) throw new HostgateError("permission_denied", "This passkey is not enrolled.");
    const v = await verifyAuthenticationResponse({ response: assertion, expectedChallenge, expectedOrigin: rp.origin, expectedRPID: rp.id, credential: known.cred, requireUserVerification: true })
      .catch((err: unknown) => { throw new HostgateError("permission_denied", `The passkey assertion does not verify: ${(err as Error).message}`); });
    if (!v.verified) throw new HostgateError("permission_denied", "The passkey assertion does not verify.");
    known.cred.counter = v.authenticationInfo.newCounter;
    known.last_used_at = new Date().toISOString();
    return known.name;
  };
  const steps = (deps: DaemonDeps, planId: string): ShownStep[] => deps.transactions().planSteps(planId).map((t) => ({ transaction_id: t.id, preview_hash: t.preview_hash }));

  return {
    credentials,
    enrollmentOptions: async (_deps, rp, name) => {
      const creation = await generateRegistrationOptions({
        rpName: rp.name, rpID: rp.id, userName: name, attestationType: "none",
        authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
        excludeCredentials: [...credentials.values()].map((c) => ({ id: c.cred.id })),
      });
      regChallenges.set(name, creation.challenge);
      let existing = null;
      if (credentials.size > 0) {
        existing = await generateAuthenticationOptions({ rpID: rp.id, userVerification: "required", allowCredentials: [...credentials.values()].map((c) => ({ id: c.cred.id })) });
        enrollAssertChallenges.set(name, existing.challenge);
      }
      return { creation, existing };
    },
    enrollmentFinish: async (_deps, rp, input) => {
      const expected = regChallenges.get(input.name);
      regChallenges.delete(input.name);
      if (expected === undefined) throw new HostgateError("invalid_params", "No enrollment was started for this name.");
      if (credentials.size > 0) {
        const c = enrollAssertChallenges.get(input.name);
        enrollAssertChallenges.delete(input.name);
        if (!input.existing_assertion || c === undefined) throw new HostgateError("permission_denied", "Adding a passkey needs an assertion from an enrolled one.");
        await verifyAssertion(rp, c, input.existing_assertion);
      }
      const v = await verifyRegistrationResponse({ response: input.registration, expectedChallenge: expected, expectedOrigin: rp.origin, expectedRPID: rp.id, requireUserVerification: true });
      if (!v.verified) throw new HostgateError("permission_denied", "The registration does not verify.");
      const cred = v.registrationInfo.credential;
      credentials.set(cred.id, { cred, name: input.name, created_at: new Date().toISOString(), last_used_at: null });
      return { credential_id: cred.id, name: input.name };
    },
    approvalOptions: async (deps, rp, planId) => {
      const s = steps(deps, planId);
      const nonce = randomBytes(16).toString("hex");
      const challenge = createHash("sha256").update(JSON.stringify(s)).update(nonce).digest();
      const options = await generateAuthenticationOptions({ rpID: rp.id, challenge: new Uint8Array(challenge), userVerification: "required", allowCredentials: [...credentials.values()].map((c) => ({ id: c.cred.id })) });
      approvalChallenges.set(planId, { challenge: options.challenge, steps: JSON.stringify(s) });
      return { options, steps: s };
    },
    approveWithPasskey: async (deps, rp, planId, shown, assertion, caller) => {
      const held = approvalChallenges.get(planId);
      approvalChallenges.delete(planId);
      if (!held) throw new HostgateError("permission_denied", "No approval challenge is open for this plan (used or never asked for).");
      if (held.steps !== JSON.stringify(shown) || held.steps !== JSON.stringify(steps(deps, planId))) throw new HostgateError("plan_changed", "The plan is not what was shown.");
      await verifyAssertion(rp, held.challenge, assertion);
      return approve(deps, planId, caller, shown);
    },
    listPasskeys: () => [...credentials.values()].map((c) => ({ credential_id: c.cred.id, name: c.name, created_at: c.created_at, last_used_at: c.last_used_at })),
  };
}
