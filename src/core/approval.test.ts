import { describe, expect, it } from "vitest";
import { checkApprover, separationOf, ttyNrOfStat } from "./approval.ts";
import { actorOf, inProcessCaller, type Caller } from "./caller.ts";

const peer = (uid: number, socket: Caller["socket"] = "admin"): Caller => ({ role: "admin", socket, peer: { uid, gid: uid, pid: 42 }, client_name: null, label: "approve" });
const planner = (uid: number | null): string => actorOf(uid === null ? inProcessCaller("operator", "mcp") : { role: "operator", socket: "agent", peer: { uid, gid: uid, pid: 7 }, client_name: "claude-code", label: "mcp" });

describe("separationOf", () => {
  it("is separated only for two different uids, not both root", () => {
    expect(separationOf(planner(1000), peer(0)).separation).toBe("separated");
    expect(separationOf(planner(1000), peer(1001)).separation).toBe("separated");
    expect(separationOf(planner(1000), peer(1000))).toMatchObject({ separation: "none", why: "planner and approver are the same uid 1000" });
    expect(separationOf(planner(0), peer(0))).toMatchObject({ separation: "none", why: "planner and approver are both root" });
  });
  it("is none when the kernel reported no uid for either side", () => {
    expect(separationOf(planner(null), peer(0)).separation).toBe("none");
    expect(separationOf(planner(1000), inProcessCaller("admin", "t")).separation).toBe("none");
    expect(separationOf("mcp", peer(0)).separation).toBe("none"); // an old free-form actor
  });
  it("a step planned over tcp:// (token, no uid) and approved by a local uid is separated by credential (issue 21)", () => {
    const tcpPlanner = actorOf({ role: "operator", socket: "tcp", peer: null, client_name: "claude-code", label: "tcp" });
    expect(separationOf(tcpPlanner, peer(1000))).toMatchObject({ separation: "separated", why: expect.stringContaining("daemon-token holder") as unknown });
    expect(separationOf(tcpPlanner, inProcessCaller("admin", "t")).separation).toBe("none");
  });
});

describe("ttyNrOfStat", () => {
  it("reads field 7 after the last ')' (command names may hold spaces and parentheses)", () => {
    expect(ttyNrOfStat("1234 (bash) S 1 1234 1234 34816 1234 4194560 …")).toBe(34816);
    expect(ttyNrOfStat("99 (evil) 1 2 3 (x) S 1 99 99 0 -1 4194560")).toBe(0);
    expect(ttyNrOfStat("99 (a b) R 1 99 99 0 -1")).toBe(0);
    expect(ttyNrOfStat("garbage")).toBeNull();
  });
});

describe("checkApprover", () => {
  const sep = separationOf(planner(1000), peer(0));
  const none = separationOf(planner(0), peer(0));
  it("refuses without a controlling terminal, naming the route that works", () => {
    expect(() => { checkApprover(sep, 0, "deny"); }).toThrow(/no controlling terminal/);
    expect(() => { checkApprover(sep, null, "allow"); }).toThrow(/no controlling terminal/);
    try { checkApprover(sep, 0, "deny"); } catch (err) { expect((err as { hint: string }).hint).toContain("hostgate daemon"); }
  });
  it("refuses separation none under deny, accepts it under allow, and always accepts a separated approval at a terminal", () => {
    expect(() => { checkApprover(none, 34816, "deny"); }).toThrow(/both root/);
    expect(() => { checkApprover(none, 34816, "allow"); }).not.toThrow();
    expect(() => { checkApprover(sep, 34816, "deny"); }).not.toThrow();
  });
});
