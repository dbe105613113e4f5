import { describe, expect, it } from "vitest";
import { planNext } from "./plan.ts";

describe("planNext: what the model is told to do after plan", () => {
  it("names the exact command with the plan id, that one approval covers every step, and that a chat reply is no receipt", () => {
    const one = planNext("p-1", 1);
    expect(one).toContain("Ask the user to run `hostgate approve p-1` in a terminal");
    expect(one).toContain("one approval covers the step");
    expect(one).toMatch(/A chat reply such as "yes" is not a receipt\.$/);
    expect(planNext("p-2", 3)).toContain("one approval covers all 3 steps");
  });

  it("with a console, offers it as the other way and passes on its plan link", () => {
    const text = planNext("p-3", 2, { passkey: null, console: { url: "http://127.0.0.1:7391/plans/p-3" } });
    expect(text).toContain("`hostgate approve p-3`");
    expect(text).toContain("The human may instead approve in the approval console: the human runs `hostgate console` for a one-time login link, then opens http://127.0.0.1:7391/plans/p-3");
  });

  it("a plan that needs a passkey never suggests the terminal command as a way to approve", () => {
    const text = planNext("p-4", 2, { passkey: "policy require_biometric", console: null });
    expect(text).toContain("needs a passkey approval (policy require_biometric)");
    expect(text).toContain("`hostgate approve` cannot approve it");
    expect(text).not.toContain("hostgate approve p-4");
    expect(text).toContain("one approval covers all 2 steps");
  });

  it("says sudo, or the admin group, when the daemon's admin socket needs it (core/approver.ts)", () => {
    const sudo = planNext("p-5", 1, { passkey: null, console: null, approver: { command: "sudo hostgate approve", group: null } });
    expect(sudo).toContain("Ask the user to run `sudo hostgate approve p-5` in a terminal");
    const group = planNext("p-6", 1, { passkey: null, console: null, approver: { command: "hostgate approve", group: "ops" } });
    expect(group).toContain("Ask the user to run `hostgate approve p-6` as a member of group ops (else `sudo hostgate approve p-6`) in a terminal");
  });
});
