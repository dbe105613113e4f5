/**
 * Issue 23, newcomer trial: a model polling `list_processes` read a console link (`…/enroll#<secret>`) from a
 * browser opener's argv and enrolled its own passkey first. The CLI no longer puts a link on any command line
 * (test/console/front.test.ts T23-open-argv); this test holds the other layer: whatever process carries a link
 * or an `hgl_` secret in its argv, `list_processes` through MCP shows it redacted, and the name filter cannot
 * be used as an oracle on the secret. A real `hostgate daemon` (mock systemd, its own state) and a real
 * `hostgate mcp` front over stdio; the process is a real node child whose argv holds the link.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";

const SECRET = "hgl_Q2xhdWRlU2F3VGhpc0xpbmtfbm90LWEtcmVhbC1zZWNyZXQx";
const MARK = `hg-link-holder-${process.pid}`;
const LINK = `http://localhost:48123/enroll#${SECRET}`;
let d: DaemonProcess;
let holder: ChildProcess;
let client: Client;

beforeAll(async () => {
  d = await startDaemon("backend:\n  type: mock\n");
  // A process whose argv[0] is the link (as `exec -a` would set it; the name filter looks at the name and
  // argv[0]), with the link and a bare `hgl_` secret as later arguments too, as the CLI's opener once had it.
  holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 120000)", "--", MARK, LINK, `--token=${SECRET}`], { stdio: "ignore", argv0: LINK });
  client = new Client({ name: "link-redaction-e2e", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp", "--config", d.configPath], env: { ...process.env, ...d.env, HOSTGATE_SOCKET: d.agentSocket }, stderr: "pipe" }));
}, 30_000);

afterAll(async () => {
  holder.kill("SIGKILL");
  await client.close();
  await d.stop();
  rmSync(d.dir, { recursive: true, force: true });
});

type Proc = { pid: number; argv: string[] };
async function processes(name: string): Promise<Proc[]> {
  const r = await client.callTool({ name: "list_processes", arguments: { name, limit: 500 } });
  expect(r.isError, JSON.stringify(r)).toBeFalsy();
  const text = JSON.stringify(r);
  expect(text).not.toContain(SECRET.slice(4, 20)); // no part of the secret in any field, text mirror included
  return (r.structuredContent as { processes: Proc[] }).processes;
}

describe("console link secrets in process argv (issue 23)", () => {
  it("T23-list-processes-link: the holder is listed with the link's secret redacted", async () => {
    const found = (await processes("localhost:48123")).filter((p) => p.pid === holder.pid);
    expect(found).toHaveLength(1);
    const argv = found[0]!.argv;
    expect(argv).toContain(MARK);
    expect(argv[0]).toBe("http://localhost:48123/enroll#[redacted:console_link]");
    expect(argv).toContain("http://localhost:48123/enroll#[redacted:console_link]");
    expect(argv.join(" ")).not.toContain("hgl_");
  });

  it("T23-list-processes-oracle: filtering by a prefix of the secret finds nothing", async () => {
    for (const prefix of [SECRET.slice(0, 8), SECRET.slice(0, 12), SECRET.slice(4, 14), `enroll#${SECRET.slice(0, 6)}`]) {
      expect((await processes(prefix)).map((p) => p.pid), prefix).not.toContain(holder.pid);
    }
    // The filter does see the rest of the line: the same call with the link's visible part finds the holder.
    expect((await processes("localhost:48123/enroll#")).map((p) => p.pid)).toContain(holder.pid);
  });
});
