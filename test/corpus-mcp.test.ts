/**
 * Every `mcp` case of the shared corpus (../shared/corpus/cases.jsonl, copied to test/fixtures/corpus-mcp.jsonl
 * so a fresh clone has it) as a test named by its id. A case without a test here fails the coverage test.
 */
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, connectStdio, runHostgate, startServe, type ServeProcess } from "./helpers/hostgate.ts";
import { INITIALIZE, rawHttp, toolsCall } from "./helpers/raw-http.ts";
import { isolatedEnv } from "./helpers/isolated-env.ts";
import { RawStdio } from "./helpers/raw-stdio.ts";
import { rpcMessage } from "./helpers/rpc-body.ts";

interface CorpusCase { id: string; input: string; expected: string }
const cases: CorpusCase[] = readFileSync(new URL("./fixtures/corpus-mcp.jsonl", import.meta.url), "utf8").trim().split("\n").map((l) => JSON.parse(l) as CorpusCase);

let serve: ServeProcess;
let stdio: RawStdio;
const logDir = `/var/log/hostgate-corpus-${process.pid}`;
const port = (): string => new URL(serve.url).port;

beforeAll(async () => {
  serve = await startServe([], isolatedEnv("corpus-serve")); // its own daemon: never a running one of this user (hermetic)
  // Its own daemon too: the default one of this user is shared by every front started without a runtime directory
  // (other test files, other checkouts' builds), and a front answers unavailable from a daemon of another build or
  // exposure (cli/front-client.ts), so T2-02/T2-03 failed or passed by which front started it.
  stdio = new RawStdio([], isolatedEnv("corpus-raw"));
  await stdio.initialize();
  mkdirSync(logDir, { recursive: true });
});
afterAll(async () => {
  await serve.stop();
  await stdio.stop();
  rmSync(logDir, { recursive: true, force: true });
  rmSync("/var/log-archive-hostgate-test", { recursive: true, force: true });
});

async function toolError(name: string, args: unknown): Promise<{ code: string; message: string }> {
  const r = await rawHttp(serve.url, { body: toolsCall(1, name, args) });
  const msg = rpcMessage(r.body) as { result: { isError: boolean; content: { text: string }[] } };
  expect(msg.result.isError).toBe(true);
  return (JSON.parse(msg.result.content[0]!.text) as { error: { code: string; message: string } }).error;
}

const host = (h: string) => ({ headers: { host: h }, body: toolsCall(1, "get_load", {}) });

const TESTS: Record<string, () => Promise<void>> = {
  async M001() {
    stdio.send('{"jsonrpc":"2.0","id":1,"method":"tools/list"');
    const err = await stdio.waitFor((m) => (m.error as { code?: number } | undefined)?.code === -32700);
    expect(err.id).toBeNull();
    stdio.send('{"jsonrpc":"2.0","id":"after-M001","method":"ping"}');
    expect(await stdio.waitFor((m) => m.id === "after-M001")).toHaveProperty("result");
  },
  async M002() {
    const before = stdio.lines.length;
    stdio.send("{  ");
    await stdio.waitFor(() => stdio.lines.length > before);
    const reply = JSON.parse(stdio.lines[before]!) as { id: unknown; error: { code: number } };
    expect(reply).toMatchObject({ id: null, error: { code: -32700 } });
  },
  async M004() {
    for (const body of ["[1,2,3]", '"just a string"']) {
      const r = await rawHttp(serve.url, { body });
      expect(r.status).toBe(400);
      expect(rpcMessage(r.body)).toMatchObject({ error: { code: -32600 } });
      expect(r.body).not.toMatch(/at .*\.ts:\d+/);
    }
  },
  async M005() {
    for (const params of ['"a-string"', "42", "[1,2]"]) {
      const r = await rawHttp(serve.url, { body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${params}}` });
      expect(rpcMessage(r.body)).toMatchObject({ id: 7, error: { code: -32602 } });
    }
  },
  async M006() {
    for (const body of ['{"jsonrpc":"1.0","id":1,"method":"ping"}', '{"jsonrpc":2,"id":3,"method":"ping"}', '{"id":4,"method":"ping"}']) {
      expect(rpcMessage((await rawHttp(serve.url, { body })).body)).toMatchObject({ error: { code: -32600 } });
    }
    // Pinned: a missing "jsonrpc" member is not tolerated either (last body above).
  },
  async M007() {
    for (const body of ['{"jsonrpc":"2.0","id":{},"method":"ping"}', '{"jsonrpc":"2.0","id":9,"method":12345}']) {
      expect(rpcMessage((await rawHttp(serve.url, { body })).body)).toMatchObject({ error: { code: -32600 } });
    }
  },
  async M008() {
    const batch = `[${toolsCall(1, "get_load", {})},${toolsCall(2, "get_memory_usage", {})}]`;
    const r = await rawHttp(serve.url, { body: batch });
    expect(r.status).toBe(400);
    expect(rpcMessage(r.body)).toMatchObject({ id: null, error: { code: -32600 } });
  },
  async M009() {
    const msg = rpcMessage((await rawHttp(serve.url, { body: toolsCall(3, "run_cmd", {}) })).body);
    expect(msg).toMatchObject({ id: 3, error: { code: -32602 } });
    expect((msg.error as { message: string }).message).toContain("run_cmd");
  },
  async M010() {
    const err = await toolError("read_journal", { unit: "nginx", limit: "ten" });
    expect(err.code).toBe("invalid_params");
    expect(err.message).toContain("limit");
  },
  async M011() {
    const err = await toolError("get_disk_usage", { skipValidation: true, dangerouslyDisableSandbox: true });
    expect(err.code).toBe("invalid_params");
    expect(err.message).toMatch(/skipValidation|Unrecognized/i);
  },
  async M012() {
    const big = Buffer.alloc(25 * 1024 * 1024, 0x20);
    const declared = await rawHttp(serve.url, { body: big });
    expect(declared.status).toBe(413);
    const chunked = await rawHttp(serve.url, { chunked: Array.from({ length: 25 }, () => Buffer.alloc(1024 * 1024, 0x20)), headers: { "transfer-encoding": "chunked" } });
    expect(chunked.status).toBe(413);
    expect(rpcMessage((await rawHttp(serve.url, host(`127.0.0.1:${port()}`))).body)).toHaveProperty("result");
  },
  async M014() {
    // The documented argument limit is 64 KiB (docs/configuration.md, DESIGN.md); the body limit is 1 MiB,
    // so a 150 kB argument reaches the daemon and is refused with a message naming the real limit.
    const err = await toolError("read_log_file", { path: `/var/log/${"a".repeat(150_000)}` });
    expect(err.code).toBe("arguments_too_large");
    expect(err.message).toContain("65536");
  },
  async M015() {
    expect((await rawHttp(serve.url, host("evil.example.com"))).status).toBe(403);
  },
  async M017() {
    const r = await rawHttp(serve.url, host(`127.0.0.1.nip.io:${port()}`));
    expect(r.status).toBe(403);
    expect(r.body).toContain("server.allowed_hosts");
  },
  async M019() {
    for (const h of [`localhost.:${port()}`, `[::1]:${port()}`, "localhost"]) expect((await rawHttp(serve.url, host(h))).status).toBe(200);
  },
  async M020() {
    expect((await rawHttp(serve.url, host(`[::ffff:127.0.0.1]:${port()}`))).status).toBe(200);
    expect((await rawHttp(serve.url, host(`[::ffff:10.0.0.1]:${port()}`))).status).toBe(403);
    expect((await rawHttp(serve.url, host("[::ffff:127.0.0.1"))).status).toBe(403);
  },
  async M024() {
    expect((await rawHttp(serve.url, { headers: { origin: "null" }, body: toolsCall(1, "get_load", {}) })).status).toBe(403);
    expect((await rawHttp(serve.url, { headers: { origin: ["http://localhost", "http://evil.example"] }, body: toolsCall(1, "get_load", {}) })).status).toBe(403);
    expect((await rawHttp(serve.url, { headers: { origin: "http://localhost:5173" }, body: toolsCall(1, "get_load", {}) })).status).toBe(200);
  },
  async M025() {
    const refused = await runHostgate(["serve", "--host", "0.0.0.0", "--port", "0"], { env: { HOSTGATE_HTTP_TOKEN: "" } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("server.token");
    const token = "t".repeat(32);
    const lan = await startServe(["--host", "0.0.0.0"], { HOSTGATE_HTTP_TOKEN: token });
    try {
      const r = await rawHttp(lan.url.replace("0.0.0.0", "127.0.0.1"), { headers: { host: `192.168.1.20:${new URL(lan.url).port}`, authorization: `Bearer ${token}` }, body: toolsCall(1, "get_load", {}) });
      expect(r.status).toBe(403);
      expect(r.body).toContain("server.allowed_hosts");
    } finally {
      await lan.stop();
    }
  },
  async M027() {
    // hostgate serves HTTP statelessly (a fresh server per request, no Mcp-Session-Id is ever issued), so there
    // is no session to lose: a call without a session id, or with an unknown one, is simply served.
    const plain = await rawHttp(serve.url, { body: toolsCall(5, "get_load", {}) });
    expect(plain.headers["mcp-session-id"]).toBeUndefined();
    expect(rpcMessage(plain.body)).toHaveProperty("result");
    expect(rpcMessage((await rawHttp(serve.url, { headers: { "mcp-session-id": "deadbeef" }, body: toolsCall(6, "get_load", {}) })).body)).toHaveProperty("result");
  },
  async M028() {
    const [a, b] = await Promise.all([
      rawHttp(serve.url, { body: toolsCall(1, "get_memory_usage", {}) }),
      rawHttp(serve.url, { body: toolsCall(1, "get_load", {}) }),
    ]);
    expect(JSON.stringify(rpcMessage(a.body))).toContain("total_bytes");
    expect(JSON.stringify(rpcMessage(b.body))).toContain("load1");
  },
  async M029() {
    const client = await connectHttp(serve.url, "legacy");
    try {
      const results = await Promise.all([client.callTool({ name: "list_processes", arguments: { limit: 5 } }), client.listTools(), client.callTool({ name: "get_load", arguments: {} })]);
      expect(results[0].isError).toBeFalsy();
      expect(results[1].tools.length).toBeGreaterThan(5);
      expect(results[2].isError).toBeFalsy();
    } finally {
      await client.close();
    }
  },
  async M030() {
    const client = await connectStdio("legacy", [], isolatedEnv("corpus-stdio"));
    await client.callTool({ name: "get_system_info", arguments: {} });
    await client.close();
    const raw = new RawStdio([], isolatedEnv("corpus-m030"));
    try {
      await raw.initialize();
      raw.send(toolsCall(2, "get_disk_usage", {}));
      await raw.waitFor((m) => m.id === 2);
      for (const line of raw.lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe("2.0");
    } finally {
      await raw.stop();
    }
  },
  async M031() {
    const err = await toolError("read_log_file", { path: "/var/log/../../etc/shadow" });
    expect(err.code).toBe("forbidden_path");
  },
  async M033() {
    symlinkSync("/etc/shadow", `${logDir}/app.log`);
    const err = await toolError("read_log_file", { path: `${logDir}/app.log` });
    expect(err).toMatchObject({ code: "forbidden_path" });
    expect(err.message).toContain("/etc/shadow");
    expect((await toolError("read_log_file", { path: `${logDir}/not-yet.log` })).code).toBe("not_found");
  },
  async M034() {
    mkdirSync("/var/log-archive-hostgate-test", { recursive: true });
    writeFileSync("/var/log-archive-hostgate-test/secret.txt", "secret\n");
    expect((await toolError("read_log_file", { path: "/var/log-archive-hostgate-test/secret.txt" })).code).toBe("forbidden_path");
  },
  async M035() {
    // hostgate exposes no resource templates with exploded variables yet; a resources/read of the hostile URI
    // must be refused at once, not matched by a backtracking pattern.
    const uri = `unit:///${"a,".repeat(5000)}!`;
    const r = rpcMessage((await rawHttp(serve.url, { body: JSON.stringify({ jsonrpc: "2.0", id: 35, method: "resources/read", params: { uri } }) })).body);
    expect(r).toHaveProperty("error");
  },
  async M036() {
    const msg = rpcMessage((await rawHttp(serve.url, { body: toolsCall(36, "read_log_file", { path: "/var/log/notes.txt\u0000; rm -rf /" }) })).body);
    expect(msg).toMatchObject({ id: 36, error: { code: -32602 } });
  },
  async M038() {
    // No tool starts a process or takes interactive input. The one tool that accepts a command line,
    // plan_command, only analyses it (read-only); the only tool that changes anything, execute, runs
    // catalogue actions a human approved, never model text.
    const client = await connectHttp(serve.url, "legacy");
    try {
      const tools = (await client.listTools()).tools;
      for (const t of tools) {
        const props = Object.keys(t.inputSchema.properties ?? {});
        if (t.name === "plan_command") expect(t.annotations?.readOnlyHint).toBe(true);
        else expect(props, t.name).not.toContain("command");
        expect(props, t.name).not.toContain("input");
      }
      expect(tools.filter((t) => t.annotations?.destructiveHint).map((t) => t.name)).toEqual(["execute"]);
      const r = await client.callTool({ name: "plan_command", arguments: { command: "python3 -i" } });
      expect((r.structuredContent as { decision: string }).decision).not.toBe("allow");
    } finally {
      await client.close();
    }
  },
  async M039() {
    const secret = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----";
    writeFileSync(`${logDir}/leak.log`, `${secret}\nAPI_TOKEN=ghp_${"x".repeat(36)}\n`);
    const client = await connectHttp(serve.url, "legacy");
    try {
      const r = await client.callTool({ name: "read_log_file", arguments: { path: `${logDir}/leak.log` } });
      const text = JSON.stringify(r);
      expect(text).not.toContain("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ");
      expect(text).not.toContain("x".repeat(36));
      expect(text).toContain("[redacted:");
      const me = await client.callTool({ name: "get_process", arguments: { pid: serve.child.pid } });
      expect(JSON.stringify(me.structuredContent)).not.toMatch(/environ|HOSTGATE_|PATH=/);
    } finally {
      await client.close();
    }
  },
  async "T2-01"() {
    const raw = new RawStdio([], isolatedEnv("bom"));
    try {
      raw.child.stdin.write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${INIT(0)}\n`)]));
      expect(await raw.waitFor((m) => m.id === 0)).toHaveProperty("result.protocolVersion");
    } finally {
      await raw.stop();
    }
  },
  async "T2-02"() {
    const bad = JSON.stringify({ jsonrpc: "2.0", id: "t202", method: "tools/call", params: { name: "get_load", arguments: "{}" } });
    stdio.send(bad);
    expect(await stdio.waitFor((m) => m.id === "t202")).toMatchObject({ error: { code: -32602 } });
    stdio.send(toolsCall(2021, "get_load", {}));
    stdio.send(JSON.stringify({ jsonrpc: "2.0", id: 2022, method: "ping" }));
    expect(await stdio.waitFor((m) => m.id === 2021)).toHaveProperty("result.structuredContent.load1");
    expect(await stdio.waitFor((m) => m.id === 2022)).toHaveProperty("result");
    expect(rpcMessage((await rawHttp(serve.url, { body: bad })).body)).toMatchObject({ id: "t202", error: { code: -32602 } });
    expect(rpcMessage((await rawHttp(serve.url, { body: toolsCall(2023, "get_load", {}) })).body)).toHaveProperty("result");
  },
  async "T2-03"() {
    stdio.send(JSON.stringify({ jsonrpc: "2.0", id: "t203", method: "tools/call", params: { name: "get_load", arguments: {}, _meta: { progressToken: "tok-1" } } }));
    expect(await stdio.waitFor((m) => m.id === "t203")).toHaveProperty("result.structuredContent.load1");
  },
  async "T2-04"() {
    const raw = new RawStdio([], isolatedEnv("t204"));
    try {
      await raw.initialize();
      const tokens: unknown[] = [{}, [1], null, true];
      tokens.forEach((progressToken, i) => { raw.send(JSON.stringify({ jsonrpc: "2.0", id: 40 + i, method: "tools/call", params: { name: "get_load", arguments: {}, _meta: { progressToken } } })); });
      for (let i = 0; i < tokens.length; i++) expect(await raw.waitFor((m) => m.id === 40 + i)).toMatchObject({ error: { code: -32602 } });
      raw.send(toolsCall(44, "get_load", {}));
      expect(await raw.waitFor((m) => m.id === 44)).toHaveProperty("result");
      const exit = await raw.endInput();
      expect(exit.code).toBe(0);
      expect(exit.ms).toBeLessThan(2_000);
    } finally {
      await raw.stop();
    }
  },
  async "T2-05"() {
    const before = stdio.lines.length;
    stdio.send(JSON.stringify({ jsonrpc: "2.0", id: "t205", method: "tools/call", params: { name: "list_processes", arguments: { limit: 3 }, _meta: { progressToken: "tok-1" } } }));
    await stdio.waitFor((m) => m.id === "t205");
    const progress = stdio.lines.slice(before).map((l) => JSON.parse(l) as { method?: string; params?: { progressToken?: unknown } }).filter((m) => m.method === "notifications/progress");
    for (const p of progress) expect(p.params?.progressToken).toBe("tok-1");
  },
  async "T2-06"() {
    for (const version of ["1900-01-01", "not-a-version"]) {
      const r = await rawHttp(serve.url, { headers: { "mcp-protocol-version": version }, body: JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/list" }) });
      expect(r.status, version).toBe(400);
    }
  },
  async "T2-07"() {
    const raw = new RawStdio([], isolatedEnv("crlf"));
    try {
      raw.child.stdin.write(`${INIT(1)}\r\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\r\n${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\r\n`);
      expect(await raw.waitFor((m) => m.id === 1)).toHaveProperty("result");
      expect(await raw.waitFor((m) => m.id === 2)).toHaveProperty("result.tools");
    } finally {
      await raw.stop();
    }
  },
  async "T2-08"() {
    const raw = new RawStdio([], isolatedEnv("noinit"));
    try {
      raw.send(INIT(1));
      await raw.waitFor((m) => m.id === 1);
      raw.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
      raw.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "resources/list" }));
      expect(await raw.waitFor((m) => m.id === 2)).toHaveProperty("result.tools");
      expect(await raw.waitFor((m) => m.id === 3)).toSatisfy((m: Record<string, unknown>) => "result" in m || "error" in m);
      expect(raw.child.exitCode).toBeNull();
    } finally {
      await raw.stop();
    }
  },
  async "T3-14"() {
    // Both lines in one write: the transport reads the second while the first is still in flight.
    const raw = new RawStdio([], isolatedEnv("dupid"));
    try {
      await raw.initialize();
      raw.child.stdin.write(`${toolsCall(7, "get_load", {})}\n${toolsCall(7, "list_processes", { limit: 1 })}\n`);
      const refused = await raw.waitFor((m) => m.id === 7 && "error" in m);
      expect(refused.error).toMatchObject({ code: -32600, message: expect.stringContaining("already in flight") as unknown });
      const first = await raw.waitFor((m) => m.id === 7 && "result" in m) as { result: { structuredContent: Record<string, unknown> } };
      expect(first.result.structuredContent).toHaveProperty("load1");
      // A later round trip: by then the refused call would have been answered had it run.
      raw.send(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }));
      await raw.waitFor((m) => m.id === 8);
      expect(raw.lines.filter((l) => (JSON.parse(l) as { id?: unknown }).id === 7)).toHaveLength(2);
      // Answered, the id is free again.
      raw.send(toolsCall(7, "list_processes", { limit: 1 }));
      await raw.waitFor((m) => m.id === 7 && (m.result as { structuredContent?: object } | undefined)?.structuredContent !== undefined && "processes" in (m.result as { structuredContent: object }).structuredContent);
    } finally {
      await raw.stop();
    }
    // Stateless HTTP: no session, each answer travels on its own HTTP response; the same id in two concurrent
    // POSTs is two exchanges, each answered with its own result (docs/architecture.md).
    const [load, procs] = await Promise.all([rawHttp(serve.url, { body: toolsCall(7, "get_load", {}) }), rawHttp(serve.url, { body: toolsCall(7, "list_processes", { limit: 1 }) })]);
    expect(rpcMessage(load.body)).toMatchObject({ id: 7, result: { structuredContent: { load1: expect.any(Number) as unknown } } });
    expect(rpcMessage(procs.body)).toMatchObject({ id: 7, result: { structuredContent: { processes: expect.any(Array) as unknown } } });
  },
  async "T3-15"() {
    for (const id of ["9007199254740993", "12345678901234567890123", "1774232524389"]) {
      const before = stdio.lines.length;
      stdio.send(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
      await stdio.waitFor(() => stdio.lines.length > before);
      // The id token as sent (JSON.parse would lose the digits of the first two: compare text).
      const exact = new RegExp(`"id":${id}[,}]`);
      expect(stdio.lines[before], `stdio ${id}`).toMatch(exact);
      expect(JSON.parse(stdio.lines[before]!)).toHaveProperty("result", {});
      const r = await rawHttp(serve.url, { body: `{"jsonrpc":"2.0","id":${id},"method":"ping"}` });
      expect(r.status).toBe(200);
      expect(r.body, `http ${id}`).toMatch(exact);
      expect(JSON.parse(r.body)).toHaveProperty("result", {});
    }
    // Refused by the envelope checks: the exact token still.
    const r = await rawHttp(serve.url, { body: '{"jsonrpc":"1.0","id":12345678901234567890123,"method":"ping"}' });
    expect(r.body).toMatch(/^\{"jsonrpc":"2.0","id":12345678901234567890123,"error":\{"code":-32600/);
  },
  async "T3-16"() {
    const before = stdio.lines.length;
    stdio.send('{"jsonrpc":"2.0","id":"1","method":"ping"}');
    await stdio.waitFor(() => stdio.lines.length > before);
    expect(JSON.parse(stdio.lines[before]!)).toEqual({ jsonrpc: "2.0", id: "1", result: {} });
    const r = await rawHttp(serve.url, { body: '{"jsonrpc":"2.0","id":"1","method":"ping"}' });
    expect(JSON.parse(r.body)).toEqual({ jsonrpc: "2.0", id: "1", result: {} });
  },
  async "T3-17"() {
    const stale = { "mcp-session-id": "0c6f3d1e-stale-session" };
    const call = await rawHttp(serve.url, { headers: stale, body: toolsCall(17, "get_load", {}) });
    expect(call.status).toBe(200);
    expect(rpcMessage(call.body)).toMatchObject({ id: 17, result: { structuredContent: { load1: expect.any(Number) as unknown } } });
    const init = await rawHttp(serve.url, { headers: stale, body: INITIALIZE });
    expect(init.status).toBe(200);
    expect(rpcMessage(init.body)).toMatchObject({ id: 1, result: { serverInfo: { name: "hostgate" } } });
    expect(init.headers["mcp-session-id"]).toBeUndefined();
    // A 2026-07-28 client holding a stale session id is served too.
    const modern = await connectHttp(serve.url, "modern", stale);
    try {
      expect((await modern.callTool({ name: "get_load", arguments: {} })).structuredContent).toHaveProperty("load1");
    } finally {
      await modern.close();
    }
  },
};

/** An initialize request of a 2025-06-18 client with the given id. */
const INIT = (id: number): string => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "qa", version: "1" } } });

describe("serve's start-up lines", () => {
  it("are all hostgate's own (issue 22: the SDK's JSON-mode notice reached the terminal unprefixed)", async () => {
    // Everything serve wrote up to "listening on", and a first request's worth after it.
    await fetch(serve.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", host: `127.0.0.1:${port()}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
    const lines = serve.stderr().split("\n").filter((l) => l !== "");
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.filter((l) => !l.startsWith("hostgate: "))).toEqual([]);
  });
});

describe("corpus: mcp", () => {
  it("has a test for every mcp case", () => {
    expect(cases.map((c) => c.id).filter((id) => !(id in TESTS))).toEqual([]);
  });
  for (const c of cases) {
    const test = TESTS[c.id];
    if (test) it(`${c.id}: ${c.expected.slice(0, 90)}`, test);
  }
});
