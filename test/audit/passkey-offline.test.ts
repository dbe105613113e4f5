/**
 * Issue 23: the offline verifier of recorded passkey assertions (adapters/webauthn-offline.ts, what `hostgate
 * audit verify` uses) accepts exactly what the library's check (adapters/webauthn.ts, what a live approval uses)
 * accepts: real ES256 assertions from the software authenticator, each altered one way, judged by both.
 */
import { describe, expect, it } from "vitest";
import { offlineAssertionVerifier } from "../../src/adapters/webauthn-offline.ts";
import { verifyRecordedAssertion } from "../../src/adapters/webauthn.ts";
import { SoftAuthenticator, type AssertionJSON } from "../support/soft-authenticator.ts";

const rp = { id: "localhost", origin: "http://localhost:7391" };
const auth = new SoftAuthenticator(rp);
const publicKey = Buffer.from(auth.coseKey()).toString("base64url");
const challenge = Buffer.alloc(32, 7).toString("base64url");
const input = (a: AssertionJSON, over: Record<string, string> = {}) => ({
  public_key: publicKey, credential_id: a.id, authenticator_data: a.response.authenticatorData, client_data_json: a.response.clientDataJSON,
  signature: a.response.signature, challenge, rp_id: rp.id, origin: rp.origin, ...over,
});
const flip = (b64: string, at: number): string => { const b = Buffer.from(b64, "base64url"); b[at] = b[at]! ^ 1; return b.toString("base64url"); };

describe("offline passkey verification agrees with the library (issue 23)", () => {
  const offline = offlineAssertionVerifier();
  const cases: [string, () => ReturnType<typeof input>, RegExp | null][] = [
    ["a valid assertion", () => input(auth.assert({ challenge })), null],
    ["user verification off", () => input(auth.assert({ challenge }, { uv: false })), /user not verified/],
    ["another challenge", () => input(auth.assert({ challenge: Buffer.alloc(32, 8).toString("base64url") })), /challenge/],
    ["another origin", () => input(auth.assert({ challenge }, { origin: "http://localhost:1" })), /origin/],
    ["another rp id", () => input(auth.assert({ challenge }), { rp_id: "example.com", origin: "http://example.com" }), /origin|rpIdHash/],
    ["a flipped signature byte", () => { const a = auth.assert({ challenge }); return input(a, { signature: flip(a.response.signature, 20) }); }, /signature/],
    ["a flipped authenticatorData byte", () => { const a = auth.assert({ challenge }); return input(a, { authenticator_data: flip(a.response.authenticatorData, 36) }); }, /signature/],
    ["another key", () => input(new SoftAuthenticator(rp).assert({ challenge })), /signature/],
  ];
  for (const [name, make, expected] of cases) {
    it(`T23-offline-verify: ${name}: ${expected === null ? "verifies" : "is refused"} by both`, async () => {
      const i = make();
      const [ours, library] = [await offline(i), await verifyRecordedAssertion(i)];
      if (expected === null) {
        expect(ours).toBeNull();
        expect(library).toBeNull();
      } else {
        expect(ours).toMatch(expected);
        expect(library).not.toBeNull();
      }
    });
  }
});
