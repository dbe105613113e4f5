/**
 * The webhook notifier (issue 23) against a real loopback receiver: what it sends (and never sends), its
 * deadline against a receiver that never answers, and that a failure is reported once and not retried.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { webhookNotifier } from "./webhook-notifier.ts";

const closers: (() => void)[] = [];
afterEach(() => { for (const c of closers.splice(0)) c(); });

async function receiver(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => { body += c.toString(); });
    req.on("end", () => { handle(req, body, res); });
  });
  await new Promise<void>((r) => { server.listen(0, "127.0.0.1", r); });
  closers.push(() => { server.closeAllConnections(); server.close(); });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const notice = { plan_id: "p-1", host: "local", risk: "high", summary: "Create /etc/x: 3 bytes", console_url: "http://localhost:7478/plans/t-1" };

describe("webhook notifier", () => {
  it("POSTs exactly {plan_id, host, risk, summary, console_url} as JSON", async () => {
    const got: { method?: string; type?: string; body: string }[] = [];
    const url = await receiver((req, body, res) => { got.push({ method: req.method, type: req.headers["content-type"], body }); res.end("ok"); });
    const lines: string[] = [];
    await webhookNotifier({ webhook_url: url, timeout_ms: 2000 }, (l) => lines.push(l)).planCreated({ ...notice, ...({ receipt: "hgr_secret", preview: "body" } as object) });
    expect(got).toHaveLength(1);
    expect(got[0]!.method).toBe("POST");
    expect(got[0]!.type).toBe("application/json");
    expect(JSON.parse(got[0]!.body)).toEqual(notice);
    expect(got[0]!.body).not.toMatch(/hgr_|preview/);
    expect(lines).toEqual([]);
  });

  it("gives up on a receiver that hangs after timeout_ms, says so once, and never retries", async () => {
    let hits = 0;
    const url = await receiver(() => { hits++; });
    const lines: string[] = [];
    await webhookNotifier({ webhook_url: url, timeout_ms: 300 }, (l) => lines.push(l)).planCreated(notice);
    expect(lines).toEqual([expect.stringMatching(/failed for plan p-1: no answer within 300 ms \(not retried\)$/)]);
    await new Promise((r) => setTimeout(r, 200));
    expect(hits).toBe(1);
  });

  it("reports a non-2xx answer and an unreachable receiver without throwing", async () => {
    const url = await receiver((_req, _body, res) => { res.statusCode = 500; res.end(); });
    const lines: string[] = [];
    const n = webhookNotifier({ webhook_url: url, timeout_ms: 2000 }, (l) => lines.push(l));
    await n.planCreated(notice);
    await webhookNotifier({ webhook_url: "http://127.0.0.1:1/hook", timeout_ms: 2000 }, (l) => lines.push(l)).planCreated(notice);
    expect(lines[0]).toMatch(/answered HTTP 500 for plan p-1 \(not retried\)/);
    expect(lines[1]).toMatch(/failed for plan p-1/);
  });
});
