/**
 * What the console needs from the passkey backend (issue 23, the contract between its two halves): exactly the
 * functions `src/app/passkeys.ts` exports (c23a). The console calls nothing else for passkeys. The daemon
 * composes the console with app/passkeys.ts (daemon/compose.ts); `null` (tests) serves it without passkeys
 * (enrollment and passkey approval answer 503 saying so).
 */
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { DaemonDeps } from "../../app/deps.ts";
import type { PasskeyListing } from "../../app/passkeys.ts";
import type { Caller } from "../../core/caller.ts";
import type { ApproveResult } from "../../ipc/protocol.ts";

/** The WebAuthn relying party: `id` "localhost", `origin` "http://localhost:<port>", `name` "hostgate". */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/** One step as the approver was shown it. */
export interface ShownStep {
  transaction_id: string;
  preview_hash: string;
}

/** The passkey functions of app/passkeys.ts (see the module comment); errors are HostgateError. */
export interface PasskeyBackend {
  enrollmentOptions(deps: DaemonDeps, rp: RelyingParty, name: string): Promise<{ creation: PublicKeyCredentialCreationOptionsJSON; existing: PublicKeyCredentialRequestOptionsJSON | null }>;
  enrollmentFinish(deps: DaemonDeps, rp: RelyingParty, input: { name: string; registration: RegistrationResponseJSON; existing_assertion?: AuthenticationResponseJSON }, caller: Caller): Promise<{ credential_id: string; name: string }>;
  approvalOptions(deps: DaemonDeps, rp: RelyingParty, planId: string): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; steps: ShownStep[] }>;
  approveWithPasskey(deps: DaemonDeps, rp: RelyingParty, planId: string, shown: ShownStep[], assertion: AuthenticationResponseJSON, caller: Caller): Promise<ApproveResult>;
  listPasskeys(deps: DaemonDeps): PasskeyListing[];
}
