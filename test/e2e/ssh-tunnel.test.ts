/** The MCP front reaches `hostgate daemon` through a real OpenSSH unix-socket tunnel (ssh -L local.sock:agent.sock). */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectStdio } from "../helpers/hostgate.ts";
import { forwardUnixSocket, sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";

const missing = sshdPrereqs();
if (missing && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`sshd peer required: ${missing}`);
if (missing) process.stderr.write(`SKIPPING ssh tunnel e2e: ${missing}\n`);

describe.skipIf(missing !== null)("daemon through an SSH unix-socket tunnel", () => {
  let sshd: SshdPeer;
  let daemon: DaemonProcess;
  let stopTunnel: () => Promise<void>;
  const local = join(mkdtempSync(join(tmpdir(), "hg-tunnel-")), "hostgate.sock");

  beforeAll(async () => {
    sshd = await startSshd();
    daemon = await startDaemon("backend:\n  type: mock\n");
    stopTunnel = await forwardUnixSocket(sshd, local, daemon.agentSocket);
  });
  afterAll(async () => {
    await stopTunnel?.();
    await daemon?.stop();
    await sshd?.stop();
  });

  it("serves read-only tools and plans through the tunnel", async () => {
    const client = await connectStdio("legacy", [], { HOSTGATE_SOCKET: local });
    try {
      const mem = await client.callTool({ name: "get_memory_usage", arguments: {} });
      expect((mem.structuredContent as { total_bytes: number }).total_bytes).toBeGreaterThan(0);
      const plan = await client.callTool({ name: "plan", arguments: { intent: "restart nginx" } });
      expect((plan.structuredContent as { steps: { action_name: string }[] }).steps[0]!.action_name).toBe("RestartService");
      const doctor = await client.callTool({ name: "doctor", arguments: {} });
      expect(JSON.stringify(doctor.structuredContent)).toContain("system daemon");
    } finally {
      await client.close();
    }
  });
});
