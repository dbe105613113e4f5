/**
 * Issue 19 leftover ("the daemon decides what is offered"): the MCP front lists the tools the daemon it uses
 * offers, by that daemon's exposure settings (its `describe`), not by the front's own config. A red-team model got
 * "Unknown tool" for exec_on_host while the daemon had exec on; the reverse listed tools that only failed.
 * Real daemons (`hostgate daemon` children with their own configs), real fronts (`hostgate mcp` over stdio with the
 * SDK client), each with a config this test wrote.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";

const root = mkdtempSync(join(tmpdir(), "hg-front-offer-"));
afterAll(() => { rmSync(root, { recursive: true, force: true }); });

const daemons: DaemonProcess[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(daemons.splice(0).map((d) => d.stop()));
});

let n = 0;
/** A config file of this test's own. */
function config(yaml: string): string {
  const path = join(root, `front-${++n}.yaml`);
  writeFileSync(path, yaml);
  return path;
}

/**
 * `hostgate mcp --config <frontConfig>` using the daemon at `socket` (nothing else from this machine's environment),
 * or with `socket` null this user's embedded daemon under `dir` (run by the first such front, joined by the others).
 */
async function front(socket: string | null, frontConfig: string, dir = root): Promise<{ client: Client; stderr: () => string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("HOSTGATE_"))) as Record<string, string>;
  const where: Record<string, string> = socket === null ? { HOSTGATE_DAEMON: "embedded" } : { HOSTGATE_SOCKET: socket };
  const env = { ...base, HOSTGATE_CONFIG_DIR: join(root, "etc"), HOSTGATE_RUNTIME_DIR: join(dir, "run"), HOSTGATE_STATE_DIR: join(dir, "state"), ...where };
  const transport = new StdioClientTransport({ command: process.execPath, args: [HOSTGATE_BIN, "mcp", "--config", frontConfig], env, stderr: "pipe" });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => { err += c.toString(); });
  const client = new Client({ name: "hostgate-e2e", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => err };
}

async function names(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

/** The text and error code of a tool result. */
function textOf(r: Awaited<ReturnType<Client["callTool"]>>): { text: string; code: unknown } {
  return { text: (r.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n"), code: r._meta?.["dev.hostgate/error_code"] };
}

const MOCK = "backend:\n  type: mock\n";

describe("the front lists what the daemon offers (issue 19)", () => {
  it("T19-front-1: a daemon with exec.enabled: true and a front whose config does not say: exec_on_host is listed and its call reaches the daemon", async () => {
    const d = await startDaemon(`${MOCK}exec:\n  enabled: true\n`);
    daemons.push(d);
    const { client } = await front(d.agentSocket, config(""));
    expect(await names(client)).toContain("exec_on_host");
    // The daemon judges it (no policy configured: its gate refuses the command), not the front's "Unknown tool".
    const r = await client.callTool({ name: "exec_on_host", arguments: { host: "local", command: "true" } });
    const { text, code } = textOf(r);
    expect(r.isError, text).toBe(true);
    expect(code, text).toBe("refused");
    expect(text).not.toMatch(/Unknown tool/);
  }, 60_000);

  it("T19-front-2: a front whose config turns on what the daemon hides lists none of it, says its settings have no effect, and names the daemon's configuration", async () => {
    const d = await startDaemon(`${MOCK}tools:\n  exposure: read_only\n`);
    daemons.push(d);
    const { client, stderr } = await front(d.agentSocket, config("exec:\n  enabled: true\ntools:\n  exposure: all\n"));
    const listed = await names(client);
    expect(listed).toContain("get_memory_usage");
    for (const hidden of ["exec_on_host", "plan", "execute"]) expect(listed).not.toContain(hidden);
    for (const t of (await client.listTools()).tools) expect(t.annotations?.readOnlyHint, t.name).toBe(true);
    expect(stderr()).toMatch(/this front's configuration turns on [a-z_, ]*\bexec_on_host\b[a-z_, ]*, which the daemon does not offer: not listed/);
    expect(stderr()).toMatch(/turns on [a-z_, ]*\bplan\b/);
    // Called anyway: the reason is the daemon's, and the fix is in the daemon's configuration.
    await expect(client.callTool({ name: "plan", arguments: { intent: "restart nginx" } }))
      .rejects.toThrow(new RegExp(`Unknown tool: plan is not offered by this server: tools\\.exposure is read_only.*set tools\\.exposure: all in the configuration of the configured daemon at ${d.agentSocket.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  }, 60_000);

  it("T19-front-5: a front's own config hides what its daemon offers (read_only, exec.enabled false), says where, and leaves the rest listed", async () => {
    const d = await startDaemon(`${MOCK}exec:\n  enabled: true\n`);
    daemons.push(d);
    const readOnly = await front(d.agentSocket, config("tools:\n  exposure: read_only\n"));
    const listed = await names(readOnly.client);
    expect(listed).toContain("get_memory_usage");
    for (const hidden of ["exec_on_host", "plan", "execute"]) expect(listed).not.toContain(hidden);
    expect(readOnly.stderr()).not.toMatch(/which the daemon does not offer/);
    await expect(readOnly.client.callTool({ name: "exec_on_host", arguments: { host: "local", command: "true" } }))
      .rejects.toThrow(/Unknown tool: exec_on_host is not offered by this server: this MCP server's own configuration hides it \(tools\.exposure is read_only.*set tools\.exposure: all in this MCP server's configuration/);
    const noExec = await front(d.agentSocket, config("exec:\n  enabled: false\n"));
    const some = await names(noExec.client);
    expect(some).toContain("plan");
    expect(some).not.toContain("exec_on_host");
  }, 60_000);

  it("T19-front-3: with no daemon at start the front says its list is its own configuration's; a daemon that then offers other tools answers unavailable saying to restart, one that offers the same is used", async () => {
    const dir = mkdtempSync(join(root, "late-"));
    mkdirSync(join(dir, "run"), { recursive: true });
    const socket = join(dir, "run", "agent.sock");
    const other = await front(socket, config(""));
    const same = await front(socket, config("exec:\n  enabled: true\n"));
    expect(await names(other.client)).not.toContain("exec_on_host");
    expect(await names(same.client)).toContain("exec_on_host");
    for (const f of [other, same]) expect(f.stderr()).toMatch(/Which tools that daemon offers is not known yet: listing this build's tools as this front's own configuration exposes them/);

    daemons.push(await startDaemon(`${MOCK}exec:\n  enabled: true\n`, { dir }));
    const refused = textOf(await other.client.callTool({ name: "get_memory_usage", arguments: {} }));
    expect(refused.code, refused.text).toBe("unavailable");
    expect(refused.text).toContain(`The hostgate daemon at ${socket} offers other tools than this MCP server listed`);
    expect(refused.text).toMatch(/Restart this MCP server/);
    const used = await same.client.callTool({ name: "get_memory_usage", arguments: {} });
    expect(used.isError, textOf(used).text).toBeFalsy();
  }, 90_000);

  it("T19-front-4: a front that joins another front's embedded daemon lists that daemon's offer, not its own config's", async () => {
    const dir = mkdtempSync(join(root, "embedded-"));
    const runs = await front(null, config(`${MOCK}exec:\n  enabled: true\n`), dir);
    expect(await names(runs.client)).toContain("exec_on_host");
    // A first call: this front's embedded daemon now runs.
    expect((await runs.client.callTool({ name: "get_memory_usage", arguments: {} })).isError).toBeFalsy();
    const joins = await front(null, config(MOCK), dir);
    expect(joins.stderr()).toContain("using this user's running embedded daemon");
    expect(await names(joins.client)).toContain("exec_on_host");
    const r = textOf(await joins.client.callTool({ name: "exec_on_host", arguments: { host: "local", command: "true" } }));
    expect(r.code, r.text).toBe("refused");
  }, 90_000);
});
