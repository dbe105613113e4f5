/**
 * The daemon's use cases in-process, on real SQLite stores in a temp state dir, with an injected clock and a
 * local stub LLM endpoint: receipt expiry, the LLM planner path, and the IPC protocol's refusals.
 */
import { createServer, type Server } from "node:http";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAiPlanner } from "../../src/adapters/planner-openai.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { RECEIPT_TTL_MS } from "../../src/core/transaction/transaction.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { parseListenUri, serveIpc } from "../../src/ipc/server.ts";
import { rawIpc } from "../helpers/daemon.ts";
import { testApprover } from "../support/approver.ts";

const config = ConfigSchema.parse({ backend: { type: "mock" } });
let now = Date.parse("2026-11-30T10:00:00Z");
const clock = { now: () => now };

async function daemon(extra: Parameters<typeof composeDaemon>[1] = { mode: "embedded" }): Promise<ComposedDaemon> {
  process.env.HOSTGATE_STATE_DIR = mkdtempSync(join(tmpdir(), "hg-svc-"));
  const d = await composeDaemon(config, { clock, announce: () => undefined, ...extra });
  delete process.env.HOSTGATE_STATE_DIR;
  return d;
}

describe("receipts expire by the daemon's clock", () => {
  let d: ComposedDaemon;
  beforeAll(async () => { d = await daemon(); });
  afterAll(async () => { await d.close(); });

  it("refuses a receipt 15 minutes after approval, and accepts it just before", async () => {
    const agent = d.service.agent("test");
    const admin = d.service.admin("human", testApprover());
    const dir = mkdtempSync(join(tmpdir(), "hg-exp-"));
    const mk = async (name: string) => {
      const p = await agent.call("plan", { steps: [{ action: "WriteFile", params: { path: join(dir, name), content: "x\n" } }] });
      if (!p.ok) throw new Error(p.error.message);
      const step = p.value.steps[0]!;
      const a = await admin.call("approve", { transaction_id: step.transaction_id });
      if (!a.ok) throw new Error(a.error.message);
      return { step, receipt: a.value.receipt };
    };
    const late = await mk("late");
    const early = await mk("early");
    now += RECEIPT_TTL_MS - 1;
    const ok = await agent.call("execute", { steps: [{ transaction_id: early.step.transaction_id, action_name: "WriteFile", params: early.step.params, approval_receipt: early.receipt }] });
    expect(ok.ok && ok.value.results[0]!.status).toBe("succeeded");
    now += 1;
    const r = await agent.call("execute", { steps: [{ transaction_id: late.step.transaction_id, action_name: "WriteFile", params: late.step.params, approval_receipt: late.receipt }] });
    expect(r.ok && r.value.results[0]!.error?.code).toBe("receipt_expired");
    expect(readFileSync(join(dir, "early"), "utf8")).toBe("x\n");
  });

  it("redacts a receipt that reaches an audit payload in free text, before signing", async () => {
    const agent = d.service.agent("test");
    const p = await agent.call("plan", { steps: [{ action: "ReloadService", params: { unit: "cron.service" } }] });
    if (!p.ok) throw new Error(p.error.message);
    const a = await d.service.admin("human", testApprover()).call("approve", { transaction_id: p.value.steps[0]!.transaction_id });
    if (!a.ok) throw new Error(a.error.message);
    // A careless future code path: the composed store must still keep the receipt out of the chain.
    await d.openStores().audit.append({ kind: "test.note", actor: "test", payload: { note: `user pasted ${a.value.receipt} into chat` } }, { durable: true });
    const all = JSON.stringify(d.openStores().audit.query({ limit: 10_000 }));
    expect(all).toContain("user pasted");
    expect(all).not.toContain(a.value.receipt);
  });
});

describe("the LLM planner (stub OpenAI-compatible endpoint)", () => {
  let stub: Server;
  let url = "";
  let answer = "";
  beforeAll(async () => {
    stub = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => { body += c.toString(); });
      req.on("end", () => {
        const request = JSON.parse(body) as { messages: { content: string }[] };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ choices: [{ message: { content: answer.replace("$INTENT", request.messages[1]!.content) } }] }));
      });
    });
    await new Promise<void>((r) => stub.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(stub.address() as { port: number }).port}/v1`;
  });
  afterAll(() => { stub.close(); });

  it("turns the model's proposal into validated transactions", async () => {
    answer = JSON.stringify({ steps: [{ action: "RestartService", params: { unit: "nginx.service" } }] });
    const d = await daemon({ mode: "embedded", llm: openAiPlanner({ base_url: url, model: "stub", timeout_ms: 5000 }) });
    try {
      const p = await d.service.agent("t").call("plan", { intent: "nginx is stuck" });
      expect(p.ok && p.value.planner).toBe("llm");
      expect(p.ok && p.value.steps.map((s) => s.action_name)).toEqual(["RestartService"]);
    } finally {
      await d.close();
    }
  });

  it("rejects proposals outside the catalogue, bad params, and free text", async () => {
    const d = await daemon({ mode: "embedded", llm: openAiPlanner({ base_url: url, model: "stub", timeout_ms: 5000 }) });
    try {
      const agent = d.service.agent("t");
      answer = JSON.stringify({ steps: [{ action: "RunShell", params: { command: "rm -rf /" } }] });
      expect(await agent.call("plan", { intent: "x" })).toMatchObject({ ok: false, error: { code: "unknown_action" } });
      answer = JSON.stringify({ steps: [{ action: "RestartService", params: { unit: "nginx.service; rm -rf /" } }] });
      expect(await agent.call("plan", { intent: "x" })).toMatchObject({ ok: false, error: { code: "invalid_unit_name" } });
      answer = "sure! run `systemctl restart nginx`";
      expect(await agent.call("plan", { intent: "x" })).toMatchObject({ ok: false, error: { code: "planner_error" } });
    } finally {
      await d.close();
    }
  });

  it("reports an unreachable endpoint as planner_error, not a silent fallback", async () => {
    const d = await daemon({ mode: "embedded", llm: openAiPlanner({ base_url: "http://127.0.0.1:9/v1", model: "stub", timeout_ms: 2000 }) });
    try {
      expect(await d.service.agent("t").call("plan", { intent: "restart nginx" })).toMatchObject({ ok: false, error: { code: "planner_error" } });
    } finally {
      await d.close();
    }
  });
});

describe("daemon protocol refusals", () => {
  let d: ComposedDaemon;
  let close: () => Promise<void>;
  const path = join(mkdtempSync(join(tmpdir(), "hg-ipc-")), "agent.sock");
  beforeAll(async () => {
    d = await daemon();
    const l = await serveIpc({ kind: "unix", path, mode: 0o600 }, "agent", d.service.dispatcher);
    close = () => l.close();
  });
  afterAll(async () => { await close(); await d.close(); });

  it("answers a wrong protocol version, unknown methods and bad params with clear errors", async () => {
    const wrongVersion = await new Promise<Record<string, unknown>>((resolve) => {
      void import("node:net").then(({ createConnection }) => {
        const s = createConnection(path);
        s.on("data", (c: Buffer) => { s.destroy(); resolve(JSON.parse(c.toString()) as Record<string, unknown>); });
        s.write(`${JSON.stringify({ v: 99, id: 1, method: "describe" })}\n`);
      });
    });
    expect(wrongVersion).toMatchObject({ ok: false, error: { code: "protocol_error" } });
    expect(await rawIpc(path, "format_disk", {})).toMatchObject({ ok: false, error: { code: "protocol_error" } });
    expect(await rawIpc(path, "execute", { steps: "all" })).toMatchObject({ ok: false, error: { code: "invalid_params" } });
  });

  it("refuses vsock:// with an explanation, and tcp:// without a long token", () => {
    expect(() => parseListenUri("vsock://:9734", undefined)).toThrow(/vsock is not supported.*ssh/i);
    expect(() => parseListenUri("tcp://127.0.0.1:7000", "short")).toThrow(/token/);
  });
});
