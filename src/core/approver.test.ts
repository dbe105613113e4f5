import { describe, expect, it } from "vitest";
import { approveCommandText, approverOf } from "./approver.ts";

const socket = (perm: number, group: string | null = null, uid = 0) => ({ uid, gid: group === null ? 0 : 990, perm, group });

describe("approverOf", () => {
  it("the embedded daemon: plain, whatever its socket", () => {
    expect(approverOf("embedded", socket(0o600))).toEqual({ command: "hostgate approve", group: null });
    expect(approverOf("embedded", null)).toEqual({ command: "hostgate approve", group: null });
  });

  it("the system daemon: sudo for an owner-only socket or one not known; the admin group's members plain; an open socket plain", () => {
    expect(approverOf("system", socket(0o600))).toEqual({ command: "sudo hostgate approve", group: null });
    expect(approverOf("system", socket(0o600, null, 1234))).toEqual({ command: "sudo hostgate approve", group: null });
    expect(approverOf("system", null)).toEqual({ command: "sudo hostgate approve", group: null });
    expect(approverOf("system", socket(0o660, "hostgate-admin"))).toEqual({ command: "hostgate approve", group: "hostgate-admin" });
    // A group bit without daemon.admin_group (the group is root's): only root gets in.
    expect(approverOf("system", socket(0o660, null))).toEqual({ command: "sudo hostgate approve", group: null });
    expect(approverOf("system", socket(0o640, "hostgate-admin"))).toEqual({ command: "sudo hostgate approve", group: null });
    expect(approverOf("system", socket(0o666))).toEqual({ command: "hostgate approve", group: null });
  });
});

describe("approveCommandText", () => {
  it("names the plan; the group form offers sudo as the alternative", () => {
    expect(approveCommandText({ command: "sudo hostgate approve", group: null }, "p-1")).toBe("`sudo hostgate approve p-1`");
    expect(approveCommandText({ command: "hostgate approve", group: null }, "p-1")).toBe("`hostgate approve p-1`");
    expect(approveCommandText({ command: "hostgate approve", group: "ops" }, "p-1")).toBe("`hostgate approve p-1` as a member of group ops (else `sudo hostgate approve p-1`)");
  });
});
