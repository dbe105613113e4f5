/**
 * An error's structured `details` cross the daemon protocol (reviewer report: the dispatcher dropped them, so
 * refusal reasons reached the model only as text): over real Unix sockets of a composed daemon (real SQLite,
 * mock systemd), on the agent side (a query's error) and the admin side (an ambiguous transaction prefix),
 * and every error body still parses with the protocol's schema with its details kept.
 */
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPeerCredentials } from "../../src/adapters/peer-credentials.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { composeDaemon, type ComposedDaemon } from "../../src/daemon/compose.ts";
import { ErrorBodySchema, PROTOCOL_VERSION } from "../../src/ipc/protocol.ts";
import { serveIpc, type IpcListener } from "../../src/ipc/server.ts";
import { socketAdminClient, socketDaemonClient } from "../../src/ipc/socket-client.ts";

const work = mkdtempSync(join(tmpdir(), `hg-details-polish-${process.pid}-`));
let d: ComposedDaemon;
const listeners: IpcListener[] = [];

beforeAll(async () => {
  process.env.HOSTGATE_STATE_DIR = join(work, "state");
  d = await composeDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { mode: "embedded", announce: () => undefined });
  delete process.env.HOSTGATE_STATE_DIR;
  listeners.push(await serveIpc({ kind: "unix", path: join(work, "agent.sock"), mode: 0o600 }, "agent", d.service.dispatcher, { peerCredentials: readPeerCredentials }));
  listeners.push(await serveIpc({ kind: "unix", path: join(work, "admin.sock"), mode: 0o600 }, "admin", d.service.dispatcher, { peerCredentials: readPeerCredentials }));
});
afterAll(async () => { for (const l of listeners) await l.close(); await d.close(); });

describe("error details over the sockets", () => {
  it("agent: a query refused with details (read_unit given a /definition URI) carries them", async () => {
    const agent = socketDaemonClient(listeners[0]!.address);
    try {
      const r = await agent.call("query", { action: "ReadUnit", args: { uri: "systemd://system/unit/service/nginx/definition" } });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error).toMatchObject({ code: "invalid_uri", details: { uri: "systemd://system/unit/service/nginx/definition" } });
      expect(ErrorBodySchema.parse(r.error).details).toEqual({ uri: "systemd://system/unit/service/nginx/definition" });
    } finally {
      await agent.close();
    }
  });

  it("admin: an ambiguous prefix lists the plans it matches in details", async () => {
    const p = await d.service.agent("t").call("plan", { steps: [{ action: "WriteFile", params: { path: join(work, "x"), content: "x\n" } }] });
    if (!p.ok) throw new Error(p.error.message);
    const store = d.openStores().transactions;
    const tx = store.get(p.value.steps[0]!.transaction_id)!;
    const ids = ["0badc0de-0000-4000-8000-000000000001", "0badc0de-0000-4000-8000-000000000002"];
    for (const id of ids) store.insert({ ...tx, id, plan_id: id });
    const admin = socketAdminClient(listeners[1]!.address);
    try {
      const r = await admin.call("show", { transaction_id: "0badc0de" });
      expect(r.ok ? null : r.error).toMatchObject({ code: "ambiguous_transaction", details: { matches: ids } });
    } finally {
      await admin.close();
    }
  });
});

describe("the socket client checks error bodies against the schema", () => {
  it("an error whose details are not an object becomes protocol_error (a misbehaving daemon: a stand-in server, as a real one never sends it)", async () => {
    const path = join(work, "bad.sock");
    const server = createServer((sock) => {
      sock.on("data", (c: Buffer) => {
        const req = JSON.parse(c.toString().split("\n")[0]!) as { id: number };
        sock.write(`${JSON.stringify({ v: PROTOCOL_VERSION, id: req.id, ok: true, result: { ok: false, error: { code: "refused", message: "no", details: "not an object" } } })}\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const agent = socketDaemonClient(path);
    try {
      const r = await agent.call("query", { action: "GetLoad", args: {} });
      expect(r.ok ? null : r.error).toMatchObject({ code: "protocol_error", message: expect.stringContaining("details") as string });
    } finally {
      await agent.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

