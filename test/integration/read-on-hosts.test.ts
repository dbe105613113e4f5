/**
 * Issue 20, "the model's view": read_on_hosts, one read-only tool fanned out to several hosts. The MCP front's
 * own tool handler (src/mcp/tools/read-on-hosts.ts) on the in-process client of a composed daemon whose inventory
 * hosts are real sshd servers on loopback (each this machine, seen over SSH through the daemon's own pool) plus
 * one address where nothing listens. Real cedar policy, real files under /var/log.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { META_ERROR_CODE, META_PROVENANCE } from "../../src/mcp/result.ts";
import { readOnHostsTool } from "../../src/mcp/tools/read-on-hosts.ts";
import type { ToolResult } from "../../src/mcp/tool-spec.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";
import { peerMissing } from "../helpers/peers.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";

const skip = peerMissing("read_on_hosts over real sshd", sshdPrereqs());

const POLICY = `@id("read-lab")\n@reason("lab hosts may be read")\npermit (principal, action == Hostgate::Action::"read", resource) when { resource.tags.contains("lab") };\n`;

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => { r(); }));
  return port;
}

describe.skipIf(skip)("read_on_hosts: one read-only tool on several real SSH hosts (issue 20)", () => {
  const peers: SshdPeer[] = [];
  let work: string;
  const logDir = `/var/log/hostgate-test-roh-${process.pid}`;
  const open: ComposedDaemon[] = [];
  const stateDirs = new Map<ComposedDaemon, string>();

  beforeAll(async () => {
    peers.push(await startSshd(), await startSshd());
    work = mkdtempSync(join(tmpdir(), "hg-roh-"));
    mkdirSync(logDir, { recursive: true });
    writeFileSync(join(logDir, "app.log"), "started\nlistening on :8080\n");
  }, 30_000);
  afterAll(async () => {
    for (const d of open) await d.close();
    for (const p of peers) await p.stop();
    if (work) rmSync(work, { recursive: true, force: true });
    rmSync(logDir, { recursive: true, force: true });
  });

  async function daemon(tools: Record<string, unknown> = {}): Promise<ComposedDaemon> {
    const policies = mkdtempSync(join(work, "policies-"));
    writeFileSync(join(policies, "read.cedar"), POLICY);
    const knownHosts = join(work, "known_hosts");
    writeFileSync(knownHosts, peers.map((p) => `[127.0.0.1]:${p.port} ${readFileSync(join(p.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ")}\n`).join(""));
    const stateDir = mkdtempSync(join(work, "state-"));
    process.env.HOSTGATE_STATE_DIR = stateDir;
    const down = await closedPort();
    const config = ConfigSchema.parse({
      backend: { type: "mock" },
      policy: { dir: policies },
      tools,
      exec: { known_hosts: [knownHosts], identity_files: peers.map((p) => p.clientKey), use_agent: false, user: "root", host_keys: "strict", connect_timeout_ms: 10_000 },
      inventory: {
        providers: [{
          kind: "static", name: "lab", cache_ttl: 0, tags: ["lab"],
          hosts: [{ name: "web1", address: "127.0.0.1", port: peers[0]!.port }, { name: "web2", address: "127.0.0.1", port: peers[1]!.port }, { name: "down", address: "127.0.0.1", port: down }],
        }],
      },
    });
    const d = await composeDaemon(config, { mode: "embedded", announce: () => undefined });
    delete process.env.HOSTGATE_STATE_DIR;
    open.push(d);
    stateDirs.set(d, stateDir);
    return d;
  }

  const call = (d: ComposedDaemon, args: Record<string, unknown>): Promise<ToolResult> => readOnHostsTool.handler(args, d.service.agent("roh"));
  const body = (r: ToolResult): { error: { code: string; message: string; hint?: string } } => JSON.parse(r.content[0]!.text) as never;

  it("3 hosts, one unreachable: the two identical answers are one group with both hosts, the third is an error beside it; the result matches the outputSchema", async () => {
    const d = await daemon();
    const r = await call(d, { tool: "read_log_file", arguments: { path: `${logDir}/app.log` }, hosts: ["web1", "down", "web2"] });
    expect(r.isError).toBeUndefined();
    const out = r.structuredContent as { groups: { hosts: string[]; data: { text?: string; lines?: unknown } }[]; errors: { host: string; code: string; message: string }[] };
    expect(out.groups[0]?.hosts, JSON.stringify(out.errors)).toEqual(["web1", "web2"]);
    expect(out.groups).toHaveLength(1);
    expect(JSON.stringify(out.groups[0]!.data)).toContain("listening on :8080");
    expect(out.errors).toEqual([{ host: "down", code: "unreachable", message: expect.stringContaining("127.0.0.1") as string, hint: expect.any(String) as string }]);
    expect(r._meta?.[META_PROVENANCE]).toMatchObject({ hosts: ["web1", "down", "web2"], action: "ReadLogFile", untrusted: true });
    // A client that validates structuredContent against the published outputSchema accepts it.
    expect(new AjvJsonSchemaValidator().getValidator(readOnHostsTool.outputSchema!)(r.structuredContent).valid).toBe(true);
    // The answer equals the single-host direct tool's answer on one of those hosts.
    const one = await d.service.agent("roh").call("query", { action: "ReadLogFile", args: { path: `${logDir}/app.log` }, host: "web2" });
    expect(one.ok && one.value.data).toEqual(out.groups[0]!.data);
  }, 30_000);

  it("answers that differ (moving memory counters) are separate groups; local is a host like the others; every host is in exactly one group", async () => {
    const d = await daemon();
    const r = await call(d, { tool: "get_memory_usage", hosts: ["web1", "web2", "local"] });
    const out = r.structuredContent as { groups: { hosts: string[] }[]; errors: unknown[] };
    expect(out.errors).toEqual([]);
    // Moving counters differ from read to read: every host answered, each host in exactly one group.
    expect(out.groups.flatMap((g) => g.hosts).sort()).toEqual(["local", "web1", "web2"]);
  }, 30_000);

  it("a fan-out is ONE audit entry (query.fanout: the call, the host list, each host's machine, policies and outcome digest), not one per host; hostgate audit verify says intact", async () => {
    const d = await daemon();
    const entries = (): { kind: string; payload: Record<string, unknown> }[] => d.openStores().audit.query().map((e) => ({ kind: e.kind, payload: JSON.parse(e.payload) as Record<string, unknown> }));
    const before = entries().length;
    const r = await call(d, { tool: "read_log_file", arguments: { path: `${logDir}/app.log` }, hosts: ["web1", "web2", "down", "nosuch"] });
    expect(r.isError).toBeUndefined();
    const added = entries().slice(before);
    expect(added.map((e) => e.kind)).toEqual(["query.fanout"]);
    const { payload } = added[0]!;
    expect(payload.action).toBe("ReadLogFile");
    expect(payload.hosts).toEqual(["web1", "web2", "down", "nosuch"]);
    const outcomes = payload.outcomes as { host: string; outcome: string; machine?: string; policies?: string[]; answer_sha256?: string }[];
    expect(outcomes.map((o) => [o.host, o.outcome])).toEqual([["web1", "ok"], ["web2", "ok"], ["down", "unreachable"], ["nosuch", "refused"]]);
    expect(outcomes[0]).toMatchObject({ machine: "web1", policies: ["read-lab"], answer_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) as string });
    // The two identical answers have the same digest.
    expect(outcomes[1]!.answer_sha256).toBe(outcomes[0]!.answer_sha256);
    // A one-host read is still its own query.remote entry.
    await d.service.agent("roh").call("query", { action: "GetLoad", args: {}, host: "web1" });
    expect(entries().slice(before + 1).map((e) => e.kind)).toEqual(["query.remote"]);
    const v = spawnSync(process.execPath, [HOSTGATE_BIN, "audit", "verify", "--state-dir", stateDirs.get(d)!, "--json"], { encoding: "utf8", env: { ...process.env, HOSTGATE_CONFIG_DIR: join(work, "no-config") } });
    // Every entry checks out, signatures included; `unanchored` only because the key is the state directory's own.
    const verdict = JSON.parse(v.stdout) as { status: string; reason?: string; checked: number; last_seq: number; signatures_checked: boolean };
    expect(verdict, v.stdout + v.stderr).toMatchObject({ status: "unanchored", reason: "key_not_pinned", signatures_checked: true });
    expect(verdict.checked).toBe(verdict.last_seq);
  }, 60_000);

  it("when no host answers the result is an error (isError, the first host's code), still with every host's error (a name no inventory lists: refused by the read policy)", async () => {
    const d = await daemon();
    const r = await call(d, { tool: "get_load", hosts: ["down", "nosuch"] });
    expect(r.isError).toBe(true);
    expect(r._meta?.[META_ERROR_CODE]).toBe("unreachable");
    expect((r.structuredContent as { errors: { host: string; code: string }[] }).errors.map((e) => [e.host, e.code])).toEqual([["down", "unreachable"], ["nosuch", "refused"]]);
  }, 30_000);

  it("bad input is refused with what to send, before any host is dialed: an unknown tool, a mutating action, host inside arguments, no hosts", async () => {
    const d = await daemon();
    const unknown = await call(d, { tool: "get_everything", hosts: ["web1"] });
    expect(unknown.isError).toBe(true);
    expect(body(unknown).error).toMatchObject({ code: "unknown_action", message: expect.stringContaining("get_everything is not a read-only tool") as string });
    const mutating = await call(d, { tool: "restart_service", arguments: { unit: "x.service" }, hosts: ["web1"] });
    expect(body(mutating).error.code).toBe("not_read_only");
    const nested = await call(d, { tool: "get_load", arguments: { host: "web1" }, hosts: ["web2"] });
    expect(body(nested).error).toMatchObject({ code: "invalid_params", message: expect.stringContaining('takes the hosts in "hosts"') as string });
    const none = await call(d, { tool: "get_load", hosts: [] });
    expect(body(none).error).toMatchObject({ code: "invalid_params", hint: expect.stringContaining('"hosts":["web1","web2"]') as string });
    const f = await d.service.deps.hostsFeature!();
    expect((f.executor as unknown as { connections: number }).connections).toBe(0);
  }, 30_000);

  it("the daemon applies exposure to the fan-out itself: tools.disable [read_on_hosts] refuses query { hosts } (tool_disabled) but not a one-host read", async () => {
    const d = await daemon({ disable: ["read_on_hosts"] });
    const r = await call(d, { tool: "get_load", hosts: ["web1"] });
    expect(body(r).error).toMatchObject({ code: "tool_disabled", message: expect.stringContaining("read_on_hosts") as string });
    const one = await d.service.agent("roh").call("query", { action: "GetLoad", args: {}, host: "web1" });
    expect(one.ok).toBe(true);
    // Hiding the fanned-out tool hides its fan-out too.
    const hidden = await daemon({ disable: ["get_load"] });
    expect(body(await call(hidden, { tool: "get_load", hosts: ["web1"] })).error.code).toBe("tool_disabled");
  }, 30_000);
});
