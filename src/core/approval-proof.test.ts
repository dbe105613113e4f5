import { describe, expect, it } from "vitest";
import { judgeApproval, passkeyRequirement, passkeySeparation, type PasskeyProof } from "./approval-proof.ts";
import { actorOf, type Caller } from "./caller.ts";
import type { SeparationFacts } from "./approval.ts";

const separated: SeparationFacts = { separation: "separated", planner_uid: 1000, approver_uid: 0, why: "planned by uid 1000, approved by uid 0" };
const same: SeparationFacts = { separation: "none", planner_uid: 1000, approver_uid: 1000, why: "planner and approver are the same uid 1000" };
const passkey: PasskeyProof = {
  kind: "passkey", approver_name: "alice", credential_id: "cred", user_verified: true, nonce: "n", rp_id: "localhost", origin: "http://localhost:1",
  assertion: { credential_id: "cred", authenticator_data: "a", client_data_json: "c", signature: "s" },
  anchor: { uid: 0, seq: 3 },
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

describe("passkeySeparation: what a passkey approval proves (issue 23)", () => {
  const planner = (uid: number | null, socket: Caller["socket"] = "agent"): string => actorOf({ role: "operator", socket, peer: uid === null ? null : { uid, gid: uid, pid: 7 }, client_name: "claude-code", label: "mcp" });
  it("T23-passkey-separation-embedded: on the embedded daemon it is 'convenience, same user' (separation none), whoever anchored the enrollment", () => {
    const f = passkeySeparation(planner(1000), { uid: 0, seq: 3 }, "embedded", "alice");
    expect(f.separation).toBe("none");
    expect(f.why).toMatch(/^convenience, same user: passkey alice approved on the embedded daemon/);
  });

  it("T23-passkey-separation-system: on a system daemon it is separated when another uid (root here) anchored the enrollment on the admin socket", () => {
    const f = passkeySeparation(planner(1000), { uid: 0, seq: 3 }, "system", "alice");
    expect(f).toEqual({ separation: "separated", planner_uid: 1000, approver_uid: 0, why: "passkey alice enrolled through a link minted on the admin socket by uid 0; planned by uid 1000" });
    expect(passkeySeparation(planner(1000), { uid: 1001, seq: 3 }, "system", "alice").separation).toBe("separated");
    expect(passkeySeparation(planner(null, "tcp"), { uid: 1001, seq: 3 }, "system", "alice").separation).toBe("separated");
  });

  it("T23-passkey-separation-none: same uid, both root, no recorded anchor, or a planner with no uid give none, saying why", () => {
    expect(passkeySeparation(planner(1000), { uid: 1000, seq: 3 }, "system", "alice").why).toMatch(/by uid 1000, the planner's own uid$/);
    expect(passkeySeparation(planner(0), { uid: 0, seq: 3 }, "system", "alice").why).toMatch(/both root/);
    expect(passkeySeparation(planner(1000), { uid: null, seq: null }, "system", "alice").why).toMatch(/no recorded enrollment anchor/);
    expect(passkeySeparation(planner(null, "in_process"), { uid: 0, seq: 3 }, "system", "alice").why).toMatch(/no uid for the front/);
    for (const [p, a] of [[1000, 1000], [0, 0], [1000, null]] as const) expect(passkeySeparation(planner(p), { uid: a, seq: 1 }, "system", "x").separation).toBe("none");
  });
});
