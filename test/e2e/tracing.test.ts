/**
 * Issue 25: OpenTelemetry traces. A loopback OTLP/HTTP JSON receiver (test/helpers/otlp-receiver.ts) receives the
 * spans of real tools/calls: SDK client ↔ `hostgate mcp` ↔ `hostgate daemon` ↔ a real sshd (network namespace),
 * each process exporting on its own. Checked: the client's `_meta.traceparent` is the front span's parent, the
 * daemon's spans are children of the front's across the socket, the gate and the SSH exec are children of the
 * daemon's request span, the MCP semantic conventions' names and attributes, errors marked, and a secret planted in a
 * command appears in no exported byte. With tracing off (embedded daemon): nothing is sent and no @opentelemetry
 * module is loaded (a --require preload lists require.cache at exit: the OpenTelemetry packages are CommonJS); with it
 * on, the same list holds them.
 */
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectStdio, runHostgate } from "../helpers/hostgate.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver.ts";
import { netnsPrereqs, startNetnsLab, type NetnsLab } from "../peers/netns-sshd.ts";

const missing = netnsPrereqs();
if (missing && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`netns sshd peers required: ${missing}`);
if (missing) process.stderr.write(`SKIPPING tracing e2e over SSH: ${missing}\n`);

/** OTLP's span kinds (opentelemetry-proto trace.proto SpanKind). */
const SERVER = 2;
const CLIENT = 3;
/** opentelemetry-proto Status.code ERROR. */
const STATUS_ERROR = 2;

/** Every standard variable set (empty = unset for hostgate), so a variable of the environment running the tests never leaks in. */
function otelEnv(endpoint: string | null): Record<string, string> {
  return {
    OTEL_SDK_DISABLED: "", OTEL_TRACES_EXPORTER: "", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "", OTEL_SERVICE_NAME: "",
    OTEL_EXPORTER_OTLP_PROTOCOL: "", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint ?? "",
  };
}
const hex = (bytes: number): string => randomBytes(bytes).toString("hex");
const work = mkdtempSync(join(tmpdir(), "hg-otel-"));
const SECRET = `ghp_${"Qw3rTy7UiO".repeat(3)}zyxwvu`;

describe.skipIf(missing !== null)("tracing: one trace from the client's _meta through the front, the daemon socket and SSH", () => {
  let receiver: OtlpReceiver;
  let lab: NetnsLab;
  let daemon: DaemonProcess;
  let client: Client;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    lab = await startNetnsLab(1);
    cpSync("examples/policies", join(work, "policies"), { recursive: true });
    const h = lab.hosts[0]!;
    daemon = await startDaemon([
      "backend:", "  type: mock",
      "inventory:", "  providers:", "    - kind: static", "      name: lab", "      hosts:",
      `        - { name: ${h.name}, address: ${h.ip}, user: root, tags: [lab] }`,
      "exec:", "  enabled: true", `  known_hosts: [${lab.knownHosts}]`, `  identity_files: [${lab.clientKey}]`,
      "policy:", `  dir: ${join(work, "policies")}`, "",
    ].join("\n"), { env: otelEnv(receiver.url) });
    client = await connectStdio("legacy", ["--config", daemon.configPath], { HOSTGATE_SOCKET: daemon.agentSocket, ...otelEnv(receiver.url) });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await daemon?.stop();
    await lab?.stop();
    await receiver?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const inTrace = (traceId: string): ReceivedSpan[] => receiver.spans.filter((s) => s.traceId === traceId);

  it("exec_on_host: the front's SERVER span is the child of _meta.traceparent; the daemon's request, gate and SSH exec spans nest under it", async () => {
    const traceId = hex(16);
    const parentId = hex(8);
    const h = lab.hosts[0]!;
    const r = await client.callTool({ name: "exec_on_host", arguments: { host: h.name, command: `grep -c ${SECRET} /etc/hostname || true` }, _meta: { traceparent: `00-${traceId}-${parentId}-01`, tracestate: "hg=t1" } });
    expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
    await receiver.waitFor(() => inTrace(traceId).some((s) => s.name === "exec ssh" && s.attributes["process.exit.code"] !== undefined) && inTrace(traceId).some((s) => s.service === "hostgate-mcp"));
    const spans = inTrace(traceId);

    const front = spans.find((s) => s.service === "hostgate-mcp")!;
    expect(front.name).toBe("tools/call exec_on_host");
    expect(front.kind).toBe(SERVER);
    expect(front.parentSpanId).toBe(parentId);
    expect(front.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "exec_on_host", "gen_ai.operation.name": "execute_tool", "network.transport": "pipe" });
    expect(front.attributes["jsonrpc.request.id"]).toMatch(/^\d+$/);
    expect(front.attributes["mcp.session.id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(front.attributes["error.type"]).toBeUndefined();

    // Across the daemon socket: the request span of another process, child of the front's span.
    const request = spans.find((s) => s.service === "hostgate-daemon" && s.name === "daemon exec_on_host")!;
    expect(request.parentSpanId).toBe(front.spanId);
    expect(request.kind).toBe(SERVER);
    expect(request.attributes).toMatchObject({ "rpc.method": "exec_on_host", "gen_ai.tool.name": "exec_on_host", "hostgate.caller.socket": "agent", "hostgate.caller.role": "operator" });

    const gate = spans.find((s) => s.name === "gate exec_on_host")!;
    expect(gate.parentSpanId).toBe(request.spanId);
    expect(gate.attributes).toMatchObject({ "hostgate.decision": "allow", "hostgate.risk_level": "low", "hostgate.hosts": 1 });

    // The command itself (after the gate's sandbox probe, which is an exec under the gate span).
    const execs = spans.filter((s) => s.name === "exec ssh");
    expect(execs.every((s) => s.kind === CLIENT && s.service === "hostgate-daemon" && s.attributes["server.address"] === h.ip)).toBe(true);
    const run = execs.find((s) => s.parentSpanId === request.spanId)!;
    expect(run.attributes).toMatchObject({ "process.exit.code": 0, "hostgate.exec.timed_out": false, "server.port": h.port });
    expect(execs.filter((s) => s.parentSpanId !== request.spanId).every((s) => s.parentSpanId === gate.spanId)).toBe(true);

    // The planted secret and the command text are in no exported byte of either process.
    const sent = receiver.bodies.join("\n");
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain("ghp_");
    expect(sent).not.toContain("/etc/hostname");
  }, 60_000);

  it("a refused command is tool_error with hostgate's code on both sides; a made-up tool name is -32602 and is not recorded", async () => {
    const traceId = hex(16);
    const r = await client.callTool({ name: "exec_on_host", arguments: { host: lab.hosts[0]!.name, command: `rm -rf / --no-preserve-root # ${SECRET}` }, _meta: { traceparent: `00-${traceId}-${hex(8)}-01` } });
    expect(r.isError).toBe(true);
    const madeUp = `no_such_tool_${SECRET}`;
    const traceId2 = hex(16);
    await expect(client.callTool({ name: madeUp, arguments: {}, _meta: { traceparent: `00-${traceId2}-${hex(8)}-01` } })).rejects.toThrow(/Unknown tool/);
    await receiver.waitFor(() => inTrace(traceId).some((s) => s.service === "hostgate-mcp") && inTrace(traceId).some((s) => s.name === "daemon exec_on_host") && inTrace(traceId2).length > 0);

    const front = inTrace(traceId).find((s) => s.service === "hostgate-mcp")!;
    expect(front.attributes).toMatchObject({ "error.type": "tool_error", "hostgate.error.code": "refused" });
    expect(front.status.code).toBe(STATUS_ERROR);
    const request = inTrace(traceId).find((s) => s.name === "daemon exec_on_host")!;
    expect(request.attributes["error.type"]).toBe("refused");
    expect(inTrace(traceId).find((s) => s.name === "gate exec_on_host")!.attributes["hostgate.decision"]).toBe("deny");

    const unknown = inTrace(traceId2);
    expect(unknown.map((s) => s.name)).toEqual(["tools/call"]);
    expect(unknown[0]!.attributes).toMatchObject({ "mcp.method.name": "tools/call", "error.type": "-32602", "rpc.response.status_code": "-32602" });
    expect(unknown[0]!.attributes["gen_ai.tool.name"]).toBeUndefined();
    expect(receiver.bodies.join("\n")).not.toContain(SECRET);
  }, 60_000);

  it("a malformed traceparent (all-zero trace id) is ignored: the call succeeds in a new trace with no parent", async () => {
    const before = new Set(receiver.spans.map((s) => s.spanId));
    const r = await client.callTool({ name: "list_backends", arguments: {}, _meta: { traceparent: `00-${"0".repeat(32)}-${hex(8)}-01` } });
    expect(r.isError).toBeFalsy();
    const fresh = (): ReceivedSpan | undefined => receiver.spans.find((s) => !before.has(s.spanId) && s.name === "tools/call list_backends");
    await receiver.waitFor(() => fresh() !== undefined);
    const span = fresh()!;
    expect(span.parentSpanId).toBe("");
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.traceId).not.toBe("0".repeat(32));
    await receiver.waitFor(() => receiver.spans.some((s) => s.traceId === span.traceId && s.name === "daemon list_backends" && s.parentSpanId === span.spanId));
  }, 30_000);
});

describe("tracing on and off with the embedded daemon (one process, one provider)", () => {
  const preload = resolve(import.meta.dirname, "../fixtures/module-log/record-cjs.cjs");
  const logs = mkdtempSync(join(tmpdir(), "hg-otel-modules-"));
  afterAll(() => { rmSync(logs, { recursive: true, force: true }); });
  const run = async (endpoint: string | null, label: string): Promise<{ modules: string[] }> => {
    const log = join(logs, `modules-${label}.log`);
    const env = { ...isolatedEnv(`otel-${label}`), ...otelEnv(endpoint), NODE_OPTIONS: `--require ${preload}`, HG_MODULE_LOG: log };
    const client = await connectStdio("legacy", [], env);
    try {
      const r = await client.callTool({ name: "list_backends", arguments: {}, _meta: { traceparent: `00-${hex(16)}-${hex(8)}-01` } });
      expect(r.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    return { modules: readFileSync(log, "utf8").split("\n").filter(Boolean) };
  };

  it("off (no OTEL_* endpoint, tracing.enabled false): no request reaches the receiver and no @opentelemetry module is loaded", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const { modules } = await run(null, "off");
      expect(modules.length).toBeGreaterThan(0);
      expect(modules.filter((m) => m.includes("@opentelemetry"))).toEqual([]);
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.bodies).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it("on (OTEL_EXPORTER_OTLP_ENDPOINT): the SDK is loaded, the front's span and the in-process daemon's span form one trace, flushed at exit", async () => {
    const receiver = await startOtlpReceiver();
    try {
      const { modules } = await run(receiver.url, "on");
      expect(modules.some((m) => m.includes("/node_modules/@opentelemetry/sdk-trace-node/"))).toBe(true);
      // The client closed stdin: the front flushed before exiting.
      await receiver.waitFor((spans) => spans.some((s) => s.name === "daemon list_backends"), 10_000);
      const front = receiver.spans.find((s) => s.name === "tools/call list_backends")!;
      const request = receiver.spans.find((s) => s.name === "daemon list_backends")!;
      expect(front.service).toBe("hostgate-mcp");
      expect(request.service).toBe("hostgate-mcp");
      expect(request.traceId).toBe(front.traceId);
      expect(request.parentSpanId).toBe(front.spanId);
      expect(request.attributes["hostgate.caller.socket"]).toBe("in_process");
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it("a setting that cannot work stops the front at start with what to set (exit 2)", async () => {
    for (const [name, value, says] of [
      ["OTEL_TRACES_EXPORTER", "zipkin", /OTEL_TRACES_EXPORTER="zipkin" is not supported: hostgate exports otlp/],
      ["OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", /OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported/],
      ["OTEL_EXPORTER_OTLP_ENDPOINT", "udp://127.0.0.1:4318", /exports OTLP over HTTP only/],
    ] as const) {
      const r = await runHostgate(["mcp"], { env: { ...isolatedEnv("otel-bad"), ...otelEnv("http://127.0.0.1:9"), [name]: value }, input: "" });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(says);
    }
  }, 60_000);
});
