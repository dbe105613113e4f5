/**
 * execute's errors show what a valid call looks like (newcomer report): a malformed call (front and daemon
 * both check it), a transaction id of the wrong shape, a receipt of the wrong shape. The MCP tool's handler runs
 * against a composed daemon's in-process client (real SQLite, mock systemd); the daemon is also called directly.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { executeTool } from "../../src/mcp/tools/execute.ts";

const work = mkdtempSync(join(tmpdir(), `hg-exec-err-polish-${process.pid}-`));
let d: ComposedDaemon;
const RECEIPT = `hgr_${"A".repeat(43)}`;
const VALID = /A valid call: \{"steps":\[\{"transaction_id":"[0-9a-f-]{36}","action_name":"WriteFile","params":\{.*\},"approval_receipt":"hgr_…"\}\]\}: each step's transaction_id, action_name and params exactly as plan returned them/;

beforeAll(async () => {
  process.env.HOSTGATE_STATE_DIR = join(work, "state");
  d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
});
afterAll(async () => { await d.close(); });

type Body = { error: { code: string; message: string; hint?: string } };
const body = (r: { content: { type: string; text?: string }[] }): Body => JSON.parse(r.content.find((c) => c.text?.startsWith("{"))!.text!) as Body;

describe("execute errors say what a valid call looks like", () => {
  it("the tool: a step without its action and params is invalid_params with a valid call", async () => {
    const r = await executeTool.handler({ steps: [{ transaction_id: "tx_nope" }] }, d.service.agent("t"));
    expect(r.isError).toBe(true);
    const e = body(r).error;
    expect(e.code).toBe("invalid_params");
    expect(e.message).toContain("steps.0.action_name");
    expect(e.hint).toMatch(VALID);
  });

  it("the daemon: the same malformed params answer invalid_params with a valid call", async () => {
    const r = await d.service.agent("t").call("execute", { steps: [{ transaction_id: "x" }] } as never);
    expect(r.ok ? null : r.error).toMatchObject({ code: "invalid_params", hint: expect.stringMatching(VALID) as string });
  });

  it("a transaction id that is not one says what ids look like and where they come from", async () => {
    const r = await d.service.agent("t").call("execute", { steps: [{ transaction_id: "tx_nope", action_name: "WriteFile", params: {}, approval_receipt: RECEIPT }] });
    if (!r.ok) throw new Error(r.error.message);
    const e = r.value.results[0]!.error!;
    expect(e.code).toBe("unknown_transaction");
    expect(e.message).toBe("\"tx_nope\" is not a transaction id: ids are UUIDs such as 046110b2-253f-4cff-ab0e-349d69684139, returned by plan as steps[].transaction_id.");
    expect(e.hint).toMatch(VALID);
    const uuid = await d.service.agent("t").call("execute", { steps: [{ transaction_id: "00000000-0000-4000-8000-000000000000", action_name: "WriteFile", params: {}, approval_receipt: RECEIPT }] });
    expect(uuid.ok && uuid.value.results[0]!.error).toMatchObject({ code: "unknown_transaction", message: "No transaction 00000000-0000-4000-8000-000000000000.", hint: expect.stringMatching(VALID) as string });
  });

  it("a receipt of the wrong shape says what a receipt looks like", async () => {
    const r = await d.service.agent("t").call("execute", { steps: [{ transaction_id: "00000000-0000-4000-8000-000000000000", action_name: "WriteFile", params: {}, approval_receipt: "yes" }] });
    expect(r.ok && r.value.results[0]!.error).toMatchObject({ code: "invalid_receipt", message: expect.stringContaining("hgr_ followed by 43 characters") as string });
  });
});

describe("a step with no receipt anywhere (issue 22: the plan's receipt may be given once at the top level)", () => {
  it("T22-no-receipt: a step without approval_receipt, in a call without a top-level one, is invalid_receipt naming the plan to approve", async () => {
    const p = await d.service.agent("t").call("plan", { steps: [{ action: "WriteFile", params: { path: join(work, "none"), content: "x\n" } }] });
    if (!p.ok) throw new Error(p.error.message);
    const step = p.value.steps[0]!;
    const r = await d.service.agent("t").call("execute", { steps: [{ transaction_id: step.transaction_id, action_name: "WriteFile", params: step.params }] });
    expect(r.ok && r.value.results[0]!.error).toMatchObject({ code: "invalid_receipt", message: expect.stringContaining("No approval_receipt was given") as string, hint: expect.stringContaining(`hostgate approve ${p.value.plan_id}`) as string });
  });
});
