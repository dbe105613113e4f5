/**
 * Issue 22: one host-name rule for every tool that takes a host (core/host-id.ts HOST_ID_PATTERN), and errors
 * that name the tool the model called (a direct tool's error used to say "Invalid params for query", a method
 * it never called, and accepted `@` where exec_on_host did not). Each tool's real handler over a real composed
 * daemon (real SQLite audit chain, mock systemd backend) through the in-process client.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeAction } from "../../src/app/describe.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import GetLoad from "../../src/core/catalogue/actions/get-load.ts";
import { HOST_ID_PATTERN } from "../../src/core/host-id.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import type { DaemonClient } from "../../src/ipc/client.ts";
import { directTool } from "../../src/mcp/tools/direct.ts";
import { execOnHostTool } from "../../src/mcp/tools/exec-on-host.ts";
import { historyTool } from "../../src/mcp/tools/history.ts";
import { planCommandTool } from "../../src/mcp/tools/plan-command.ts";
import { planTool } from "../../src/mcp/tools/plan.ts";
import { readOnHostsTool } from "../../src/mcp/tools/read-on-hosts.ts";
import type { ToolSpec } from "../../src/mcp/tool-spec.ts";

const work = mkdtempSync(join(tmpdir(), `hg-host-names-${process.pid}-`));
let d: ComposedDaemon;
let client: DaemonClient;

beforeAll(async () => {
  process.env.HOSTGATE_STATE_DIR = join(work, "state");
  d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" }, exec: { enabled: true } }), { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
  client = d.service.agent("host-names");
});
afterAll(async () => {
  await d?.close();
  rmSync(work, { recursive: true, force: true });
});

const getLoad = directTool(describeAction(GetLoad))!;
/** Each tool with the arguments that carry `name` as its host. */
const TOOLS: [ToolSpec, (name: string) => Record<string, unknown>][] = [
  [getLoad, (host) => ({ host })],
  [planTool, (host) => ({ host, intent: "restart nginx" })],
  [execOnHostTool, (host) => ({ host, command: "uptime" })],
  [execOnHostTool, (host) => ({ hosts: ["web0", host], command: "uptime" })],
  [historyTool, (host) => ({ host })],
  [planCommandTool, (target) => ({ command: "uptime", target })],
  [readOnHostsTool, (host) => ({ tool: "get_load", hosts: ["web0", host] })],
];

const HOSTILE: [string, string][] = [
  ["an @ (user@host)", "root@web1"],
  ["a leading -", "-oProxyCommand=touch_x"],
  ["a space", "web1 web2"],
  ["a newline", "web1\nrm"],
  ["300 characters", "a".repeat(300)],
  ["a shell metacharacter", "web1;id"],
  ["an unbracketed :port on a bracket", "[::1]:22"],
];

async function error(tool: ToolSpec, args: Record<string, unknown>): Promise<{ code: string; message: string; hint?: string }> {
  const r = await tool.handler(args, client);
  expect(r.isError, `${tool.name} ${JSON.stringify(args)} → ${r.content[0]!.text}`).toBe(true);
  return (JSON.parse(r.content[0]!.text) as { error: { code: string; message: string; hint?: string } }).error;
}

describe("one host-name rule, errors that name the tool called (issue 22)", () => {
  for (const [what, name] of HOSTILE) {
    it(`refuses a host with ${what} on every tool, as invalid_params naming that tool`, async () => {
      expect(HOST_ID_PATTERN.test(name)).toBe(false);
      for (const [tool, args] of TOOLS) {
        const e = await error(tool, args(name));
        expect(e.code, `${tool.name}: ${e.message}`).toBe("invalid_params");
        // The tool the model called, never the daemon method behind a direct tool.
        expect(e.message, tool.name).toMatch(new RegExp(`^Invalid (params|arguments) for ${tool.name}: `));
        expect(e.message).not.toContain("for query");
        expect(e.message, tool.name).toMatch(/at most 253 characters|letters, digits/);
      }
    });
  }

  it("accepts the same names on every tool: IPv6 literals and the known_hosts provider's host:port names pass the schema", async () => {
    for (const name of ["web1", "db-2.example.com", "10.0.0.5", "10.0.0.5:2222", "fe80::1", "::1", "[::1]", "a".repeat(253)]) {
      expect(HOST_ID_PATTERN.test(name), name).toBe(true);
      for (const [tool, args] of TOOLS) {
        const r = await tool.handler(args(name), client);
        // Refused later for what the name is (no inventory, no policy), never for how it is spelled.
        if (r.isError) expect(r._meta?.["dev.hostgate/error_code"], `${tool.name} ${name}: ${r.content[0]!.text}`).not.toBe("invalid_params");
      }
    }
  });
});
