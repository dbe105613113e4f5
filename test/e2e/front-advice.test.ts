import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";

// Issue 25, trial finding 3: the advice a newcomer got was wrong for where she stood. Real daemon, real front
// (`hostgate mcp` over stdio with the SDK client), real socket permissions (a second uid through setpriv).

const TOKEN = "t".repeat(40);
// An empty system config dir of this test's own (readable by uid 65534): never /etc/hostgate (the CI decoy plants one).
const ETC = mkdtempSync(join(tmpdir(), "hg-advice-etc-"));
chmodSync(ETC, 0o755);
afterAll(() => { rmSync(ETC, { recursive: true, force: true }); });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => { const a = s.address() as { port: number }; s.close(() => { resolve(a.port); }); });
  });
}

/** `hostgate mcp` with `env` over stdio (after `wrap`, e.g. setpriv to another uid): the connected client and the front's stderr so far. */
async function front(env: Record<string, string>, wrap: string[] = []): Promise<{ client: Client; stderr: () => string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("HOSTGATE_"))) as Record<string, string>;
  const [command, ...args] = [...wrap, process.execPath, HOSTGATE_BIN, "mcp"];
  const transport = new StdioClientTransport({ command, args, env: { ...base, HOSTGATE_CONFIG_DIR: ETC, ...(wrap.length ? { HOME: "/tmp", XDG_RUNTIME_DIR: "/tmp/hg-advice-none" } : {}), ...env }, stderr: "pipe" });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => { err += c.toString(); });
  const client = new Client({ name: "hostgate-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err };
}

/** The text of a tool call that must fail. */
async function failedCall(client: Client): Promise<string> {
  const r = await client.callTool({ name: "get_memory_usage", arguments: {} });
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");
}

describe("advice that fits the caller (issue 25)", () => {
  let d: DaemonProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    d = await startDaemon("daemon:\n  agent_group: nogroup\n", { args: ["--listen", `tcp://127.0.0.1:${port}`], env: { HOSTGATE_TOKEN: TOKEN } });
    chmodSync(d.dir, 0o755); // so the second uid reaches the sockets and meets their own modes
  }, 30_000);
  afterAll(async () => { await d?.stop(); if (d) rmSync(d.dir, { recursive: true, force: true }); });

  it("a member of the agent socket's group refused by the root-only admin socket is told to rerun the command it ran with sudo, not to join the group", () => {
    const nogroup = Number(spawnSync("getent", ["group", "nogroup"], { encoding: "utf8" }).stdout.split(":")[2]);
    // Under a pseudo-terminal (util-linux script), as approve wants one; its output is the terminal's.
    const asMember = (args: string[]): { status: number | null; out: string } => {
      const argv = ["setpriv", "--reuid", "65534", "--regid", String(nogroup), "--groups", String(nogroup), process.execPath, HOSTGATE_BIN, ...args];
      const r = spawnSync("script", ["-qec", argv.join(" "), "/dev/null"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp", HOSTGATE_CONFIG_DIR: ETC } });
      return { status: r.status, out: r.stdout.replace(/\r?\n/g, " ").replace(/\s+/g, " ") };
    };
    // Each command is named as the user typed it (the re-trial's `hostgate approve` was told "sudo hostgate pending").
    for (const args of [["pending", "--socket", d.adminSocket], ["approve", "3f2a9c", "--socket", d.adminSocket]]) {
      const r = asMember(args);
      expect(r.status).not.toBe(0);
      expect(r.out).toContain(`${d.adminSocket} admits only its owner (uid 0, root)`);
      expect(r.out).toContain(`run it with sudo: sudo hostgate ${args.join(" ")}.`);
      expect(r.out).not.toMatch(/usermod/);
    }
    expect(asMember(["approve", "3f2a9c", "--socket", d.adminSocket]).out).not.toMatch(/hostgate pending/);
    // The same uid on the agent socket (its group's): that one it may use, so the group advice was the wrong one above.
    const agent = spawnSync("setpriv", ["--reuid", "65534", "--regid", String(nogroup), "--groups", String(nogroup), "sh", "-c", `test -r ${d.agentSocket} && test -w ${d.agentSocket}`]);
    expect(agent.status).toBe(0);
  });

  it("over tcp:// a front with no token and one with a wrong token get different texts, each saying what to set", async () => {
    const none = await front({ HOSTGATE_SOCKET: `tcp://127.0.0.1:${port}` });
    const wrong = await front({ HOSTGATE_SOCKET: `tcp://127.0.0.1:${port}`, HOSTGATE_TOKEN: "w".repeat(40) });
    try {
      const a = await failedCall(none.client);
      const b = await failedCall(wrong.client);
      expect(a).toMatch(/No token sent/);
      expect(a).toMatch(/Set HOSTGATE_TOKEN/);
      expect(b).toMatch(/Wrong token/);
      expect(b).not.toMatch(/No token sent/);
    } finally {
      await none.client.close();
      await wrong.client.close();
    }
  }, 60_000);

  it("a front that is not root, on a daemon whose admin socket is root's alone, says to approve with sudo; as root, without", async () => {
    const nogroup = Number(spawnSync("getent", ["group", "nogroup"], { encoding: "utf8" }).stdout.split(":")[2]);
    const member = await front({ HOSTGATE_SOCKET: d.agentSocket }, ["setpriv", "--reuid", "65534", "--regid", String(nogroup), "--groups", String(nogroup)]);
    const root = await front({ HOSTGATE_SOCKET: d.agentSocket });
    try {
      expect(member.stderr()).toContain(`approve with: sudo hostgate approve <plan_id> (admin socket ${d.adminSocket})`);
      expect(root.stderr()).toContain(`approve with: hostgate approve <plan_id> (admin socket ${d.adminSocket})`);
    } finally {
      await member.client.close();
      await root.client.close();
    }
  }, 60_000);

  it("with no daemon at its socket the front still answers initialize and tools/list; calls answer unavailable naming the socket", async () => {
    const gone = join(d.dir, "nothing-here", "agent.sock");
    const plain = await front({ HOSTGATE_SOCKET: gone });
    const image = await front({ HOSTGATE_SOCKET: gone, HOSTGATE_IN_IMAGE: "1" });
    try {
      for (const f of [plain, image]) {
        expect(f.client.getServerVersion()?.name).toBe("hostgate");
        expect((await f.client.listTools()).tools.map((t) => t.name)).toContain("get_memory_usage");
      }
      const p = await failedCall(plain.client);
      const i = await failedCall(image.client);
      for (const t of [p, i]) expect(t).toContain(`Cannot reach the hostgate daemon at ${gone}`);
      // Zero-setup advice outside the image only; inside it the daemon is the host's.
      expect(p).toMatch(/Zero-setup mode/);
      expect(i).not.toMatch(/Zero-setup|hostgate serve/);
      expect(i).toMatch(/on the host/);
      // The start notice: approving is on the host, not at an admin socket in the container.
      expect(image.stderr()).toMatch(/approve on the daemon's host, not in this container: sudo hostgate approve <plan_id>/);
      expect(image.stderr()).not.toMatch(/admin socket/);
      expect(plain.stderr()).toMatch(/approve with: hostgate approve <plan_id> \(admin socket /);
    } finally {
      await plain.client.close();
      await image.client.close();
    }
  }, 60_000);
});
