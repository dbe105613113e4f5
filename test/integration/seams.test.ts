/**
 * The seams of issue 9 on a real composed daemon (real SQLite, real Unix sockets, mock systemd backend):
 * the caller's kernel peer reaches the audit actor, host ids reach transactions, history and provenance,
 * a receipt is bound to one host, unknown hosts are refused, and min_role holds.
 */
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPeerCredentials } from "../../src/adapters/peer-credentials.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { inProcessCaller, parseActor } from "../../src/core/caller.ts";
import { previewHashInput } from "../../src/core/transaction/preview-hash.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { serveIpc, type IpcListener } from "../../src/ipc/server.ts";
import { socketDaemonClient } from "../../src/ipc/socket-client.ts";
import type { DaemonClient } from "../../src/ipc/client.ts";
import { HistoryResultSchema } from "../../src/ipc/protocol.ts";
import { testApprover } from "../support/approver.ts";

let d: ComposedDaemon;
let listener: IpcListener;
let agent: DaemonClient;
const work = mkdtempSync(join(tmpdir(), `hg-seams-${process.pid}-`));

beforeAll(async () => {
  process.env.HOSTGATE_STATE_DIR = join(work, "state");
  d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
  // A second host id over the same local context stands in for a remote host (the hosts issue registers SSH targets).
  const local = d.service.deps.hosts.get("local");
  d.service.deps.hosts.register({ ...local, id: "twin" });
  listener = await serveIpc({ kind: "unix", path: join(work, "agent.sock"), mode: 0o600 }, "agent", d.service.dispatcher, { peerCredentials: readPeerCredentials });
  agent = socketDaemonClient(listener.address);
});
afterAll(async () => { await agent.close(); await listener.close(); await d.close(); });

const planWrite = async (name: string, host?: string) => {
  const p = await agent.call("plan", { steps: [{ action: "WriteFile", params: { path: join(work, name), content: "x\n" } }], ...(host ? { host } : {}) }, { client_name: "seams-test" });
  if (!p.ok) throw new Error(p.error.message);
  return p.value.steps[0]!;
};

describe("caller identity", () => {
  it("records the kernel's peer uid/gid/pid, the socket, the role and the (untrusted) client name in the audit actor", async () => {
    const step = await planWrite("peer");
    const entry = d.openStores().audit.query({ kind: "plan.created", order: "desc", limit: 1 })[0]!;
    expect(JSON.parse(entry.payload)).toMatchObject({ transaction_id: step.transaction_id, host: "local" });
    expect(parseActor(entry.actor)).toEqual({ client: "seams-test", gid: process.getgid!(), label: "agent", pid: process.pid, role: "operator", socket: "agent", uid: process.getuid!() });
  });

  it("history[].actor is an object (uid, pid, socket, client…), not JSON in a string; free-form and odd actors show as { raw } (issue 22)", async () => {
    const step = await planWrite("actor-object");
    const store = d.openStores().audit;
    // Older free-form actors, JSON that is not an object, and an object with no field of the expected type.
    for (const actor of ["daemon", "uid:0", "[1,2]", '{"uid":"zero"}', "{not json"]) await store.append({ kind: "legacy.entry", actor, payload: { transaction_id: step.transaction_id } });
    const h = await agent.call("history", { limit: 20 });
    if (!h.ok) throw new Error(h.error.message);
    const mine = h.value.entries.filter((e) => e.transaction_id === step.transaction_id);
    expect(mine.find((e) => e.kind === "plan.created")?.actor).toEqual({ client: "seams-test", gid: process.getgid!(), label: "agent", pid: process.pid, role: "operator", socket: "agent", uid: process.getuid!() });
    expect(mine.filter((e) => e.kind === "legacy.entry").map((e) => e.actor).reverse()).toEqual([{ raw: "daemon" }, { raw: "uid:0" }, { raw: "[1,2]" }, { raw: '{"uid":"zero"}' }, { raw: "{not json" }]);
    // The answer passes the tool's outputSchema as a client validates it.
    expect(HistoryResultSchema.safeParse(h.value).success).toBe(true);
  });

  it("enforces min_role in every use case: an observer queries but cannot plan", async () => {
    const observer = d.service.agent("o", inProcessCaller("observer", "o"));
    expect(await observer.call("query", { action: "GetLoad", args: {} })).toMatchObject({ ok: true });
    expect(await observer.call("plan", { steps: [{ action: "GetLoad", params: {} }] })).toMatchObject({ ok: false, error: { code: "insufficient_role" } });
  });
});

describe("host-aware protocol", () => {
  it("defaults to local and names the host on plan, history and provenance", async () => {
    const step = await planWrite("local-default");
    expect(step.host).toBe("local");
    const q = await agent.call("query", { action: "GetLoad", args: {}, host: "twin" });
    expect(q.ok && q.value.meta).toMatchObject({ host: "twin", action: "GetLoad" });
    const h = await agent.call("history", { host: "local", limit: 500 });
    expect(h.ok && h.value.entries.every((e) => e.host === "local")).toBe(true);
    expect(h.ok && h.value.entries.map((e) => e.transaction_id)).toContain(step.transaction_id);
  });

  it("a host no inventory lists is a literal host: refused without a policy permit, on query and plan; never local", async () => {
    // Refused by the read gate before the context is built: `plan` used to dial the name first ("unreachable:
    // getaddrinfo ENOTFOUND db-9"), which made it a probe of any address a model names.
    for (const r of [await agent.call("query", { action: "GetLoad", args: {}, host: "db-9" }), await agent.call("plan", { intent: "restart nginx", host: "db-9" })]) {
      expect(r).toMatchObject({ ok: false, error: { code: "refused", details: { decision: "deny", host: "db-9" } } });
      expect(r.ok || r.error.message).toMatch(/reading a remote host needs one \(deny by default\)\. db-9 is in no inventory \(search_hosts lists the known hosts\)/);
    }
  });

  it("binds the preview_hash, and so the receipt, to one host", async () => {
    const preview = { summary: "s", text: "t" };
    expect(previewHashInput("WriteFile", "local", {}, preview, null)).not.toBe(previewHashInput("WriteFile", "twin", {}, preview, null));
    const onLocal = await planWrite("bound");
    const onTwin = await planWrite("bound", "twin");
    expect(onTwin.host).toBe("twin");
    expect(onTwin.preview_hash).not.toBe(onLocal.preview_hash);
    const admin = d.service.admin("human", testApprover());
    const a = await admin.call("approve", { transaction_id: onLocal.transaction_id });
    if (!a.ok) throw new Error(a.error.message);
    expect(await admin.call("show", { transaction_id: onTwin.transaction_id })).toMatchObject({ ok: true, value: { steps: [{ host: "twin" }] } });
    const other = await agent.call("execute", { steps: [{ transaction_id: onTwin.transaction_id, action_name: "WriteFile", params: onTwin.params, approval_receipt: a.value.receipt }] });
    expect(other.ok && other.value.results[0]!.error?.code).toBe("receipt_for_other_transaction");
    const moved = await agent.call("execute", { steps: [{ transaction_id: onLocal.transaction_id, action_name: "WriteFile", params: onLocal.params, approval_receipt: a.value.receipt, host: "twin" }] });
    expect(moved.ok && moved.value.results[0]!.error?.code).toBe("host_mismatch");
    expect(existsSync(join(work, "bound"))).toBe(false);
    const ok = await agent.call("execute", { steps: [{ transaction_id: onLocal.transaction_id, action_name: "WriteFile", params: onLocal.params, approval_receipt: a.value.receipt, host: "local" }] });
    expect(ok.ok && ok.value.results[0]!.status).toBe("succeeded");
    expect(readFileSync(join(work, "bound"), "utf8")).toBe("x\n");
    const stored = d.openStores().transactions.get(onTwin.transaction_id);
    expect(stored?.host).toBe("twin");
  });
});
