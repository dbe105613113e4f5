import { describe, expect, it } from "vitest";
import { actorOf } from "../core/caller.ts";
import { enrollerOf } from "./passkeys.ts";

describe("enrollerOf (issue 23: who enrolled a passkey, for a human)", () => {
  it("names the kernel uid and the socket, the console label, or the actor as recorded", () => {
    expect(enrollerOf(actorOf({ role: "admin", socket: "admin", peer: { uid: 1000, gid: 1000, pid: 42 }, client_name: null, label: "console" }))).toBe("uid 1000 (admin socket) through the console");
    expect(enrollerOf(actorOf({ role: "admin", socket: "admin", peer: { uid: 0, gid: 0, pid: 1 }, client_name: null, label: "cli" }))).toBe("uid 0 (admin socket)");
    expect(enrollerOf(actorOf({ role: "admin", socket: "in_process", peer: null, client_name: null, label: "console" }))).toBe("console");
    expect(enrollerOf("daemon")).toBe("daemon");
  });
});
