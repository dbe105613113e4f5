import { describe, expect, it } from "vitest";
import { judgeApproval, passkeyRequirement, type PasskeyProof } from "./approval-proof.ts";
import type { SeparationFacts } from "./approval.ts";

const separated: SeparationFacts = { separation: "separated", planner_uid: 1000, approver_uid: 0, why: "planned by uid 1000, approved by uid 0" };
const same: SeparationFacts = { separation: "none", planner_uid: 1000, approver_uid: 1000, why: "planner and approver are the same uid 1000" };
const passkey: PasskeyProof = {
  kind: "passkey", approver_name: "alice", credential_id: "cred", user_verified: true, nonce: "n", rp_id: "localhost", origin: "http://localhost:1",
  assertion: { credential_id: "cred", authenticator_data: "a", client_data_json: "c", signature: "s" },
};
const any = { same_user: "allow" as const, passkey_required: null };

describe("judgeApproval: every approver proof judged in one place (issue 23)", () => {
  it("T23-judge-terminal: a terminal approval needs a controlling terminal; its method is terminal when separated, same-user otherwise", () => {
    expect(judgeApproval({ kind: "terminal", uid: 0, tty: 34816 }, separated, any)).toBe("terminal");
    expect(judgeApproval({ kind: "terminal", uid: 1000, tty: 34816 }, same, any)).toBe("same-user");
    expect(() => judgeApproval({ kind: "terminal", uid: 0, tty: 0 }, separated, any)).toThrow(/no controlling terminal/);
    expect(() => judgeApproval({ kind: "terminal", uid: null, tty: null }, separated, any)).toThrow(/no controlling terminal/);
    expect(() => judgeApproval({ kind: "terminal", uid: 1000, tty: 34816 }, same, { same_user: "deny", passkey_required: null })).toThrow(/Same-user approval refused/);
  });

  it("T23-judge-passkey-required: a plan that needs a passkey refuses a terminal or test approval, naming `hostgate console`; a verified passkey passes", () => {
    const rules = { same_user: "allow" as const, passkey_required: "step x is high risk" };
    let err: unknown;
    try { judgeApproval({ kind: "terminal", uid: 0, tty: 34816 }, separated, rules); } catch (e) { err = e; }
    const e = err as { code: string; message: string; hint: string };
    expect(e.code).toBe("passkey_required");
    expect(e.message).toMatch(/needs a passkey approval \(step x is high risk\)/);
    expect(e.hint).toMatch(/hostgate console/);
    expect(judgeApproval(passkey, same, { same_user: "deny", passkey_required: "step x is high risk" })).toBe("passkey");
    expect(() => judgeApproval({ ...passkey, user_verified: false }, same, any)).toThrow(/user verification/);
  });
});

describe("passkeyRequirement (issue 23)", () => {
  it("T23-passkey-required-from: risk at or above approval.passkey_required_from, or a policy decision require_biometric in a preview", () => {
    const steps = [{ id: "a", risk_level: "low" as const }, { id: "b", risk_level: "high" as const }];
    expect(passkeyRequirement(steps, null)).toBeNull();
    expect(passkeyRequirement(steps, "critical")).toBeNull();
    expect(passkeyRequirement(steps, "high")).toBe("step b is high risk, and approval.passkey_required_from is high");
    expect(passkeyRequirement(steps, "low")).toMatch(/^step a is low risk/);
    expect(passkeyRequirement([{ id: "c", risk_level: "low", intended: { decision: "require_biometric" } }], null)).toBe("the policy decided require_biometric for step c");
    expect(passkeyRequirement([{ id: "c", risk_level: "low", intended: { decision: "require_approval" } }], null)).toBeNull();
  });
});
