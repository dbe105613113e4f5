import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { EOF_GRACE_MS, FramedStdioTransport } from "./stdio.ts";

function harness(): { input: PassThrough; out: string[]; received: unknown[]; transport: FramedStdioTransport; closed: Promise<number> } {
  const input = new PassThrough();
  const output = new PassThrough();
  const out: string[] = [];
  output.on("data", (c: Buffer) => { out.push(...c.toString().split("\n").filter(Boolean)); });
  const transport = new FramedStdioTransport(input, output);
  const received: unknown[] = [];
  transport.onmessage = (m) => { received.push(m); };
  const started = Date.now();
  const closed = new Promise<number>((r) => { transport.onclose = () => { r(Date.now() - started); }; });
  void transport.start();
  return { input, out, received, transport, closed };
}

const until = async (cond: () => boolean): Promise<void> => { while (!cond()) await new Promise((r) => setImmediate(r)); };

describe("FramedStdioTransport", () => {
  it("ignores one leading UTF-8 BOM, not a second one (T2-01)", async () => {
    const h = harness();
    h.input.write(Buffer.from([0xef, 0xbb]));
    h.input.write(Buffer.concat([Buffer.from([0xbf]), Buffer.from('{"jsonrpc":"2.0","id":0,"method":"ping"}\n\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}\n')]));
    await until(() => h.received.length + h.out.length >= 2);
    expect(h.received).toEqual([{ jsonrpc: "2.0", id: 0, method: "ping" }]);
    expect(JSON.parse(h.out[0]!)).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it("answers a request the SDK would not recognise instead of handing it over", async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":{"progressToken":{}}}}\n');
    await until(() => h.out.length > 0);
    expect(JSON.parse(h.out[0]!)).toMatchObject({ id: 5, error: { code: -32602 } });
    expect(h.received).toEqual([]);
  });

  it("says which request was answered once its answer is written, and only for requests it handed over", async () => {
    const h = harness();
    const answered: string[] = [];
    h.transport.onanswered = (method) => { answered.push(`${method}:${h.out.length}`); };
    h.input.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\nnot json\n');
    await until(() => h.received.length === 2 && h.out.length === 1);
    expect(answered).toEqual([]);
    await h.transport.send({ jsonrpc: "2.0", id: 1, result: { tools: [] } });
    await h.transport.send({ jsonrpc: "2.0", id: 1, result: {} }); // a second answer to the same id is not a second event
    await h.transport.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } });
    await until(() => h.out.length === 4);
    expect(answered).toEqual(["tools/list:2"]);
  });

  it("closes at once on EOF when nothing is pending", async () => {
    const h = harness();
    h.input.end();
    expect(await h.closed).toBeLessThan(EOF_GRACE_MS);
  });

  it("closes on EOF even when a request is never answered, after the grace", async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow"}}\n');
    await until(() => h.received.length === 1);
    h.input.end();
    const ms = await h.closed;
    expect(ms).toBeGreaterThanOrEqual(EOF_GRACE_MS - 50);
    expect(ms).toBeLessThan(2_000);
  });

  it("closes on EOF as soon as the last pending request is answered", async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":"a","method":"ping"}\n');
    await until(() => h.received.length === 1);
    h.input.end();
    await until(() => h.input.readableEnded);
    await h.transport.send({ jsonrpc: "2.0", id: "a", result: {} });
    expect(await h.closed).toBeLessThan(EOF_GRACE_MS);
    expect(h.out.map((l) => JSON.parse(l) as unknown)).toEqual([{ jsonrpc: "2.0", id: "a", result: {} }]);
  });
});
