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

describe("FramedStdioTransport ids (T3-14, T3-15, T3-16)", () => {
  it("T3-14: refuses a request whose id is in flight without handing it over, and frees the id once answered", async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"first"}}\n{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"second"}}\n');
    await until(() => h.received.length === 1 && h.out.length === 1);
    expect(JSON.parse(h.out[0]!)).toMatchObject({ id: 7, error: { code: -32600, message: expect.stringContaining("already in flight") as unknown } });
    expect(h.received).toEqual([{ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "first" } }]);
    await h.transport.send({ jsonrpc: "2.0", id: 7, result: { first: true } });
    h.input.write('{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    await until(() => h.received.length === 2);
    expect(h.out.map((l) => JSON.parse(l) as unknown)[1]).toEqual({ jsonrpc: "2.0", id: 7, result: { first: true } });
  });

  it("T3-14: a string id and a number id of the same digits are two ids; 7 and 7.0 are one", async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":"7","method":"ping"}\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n{"jsonrpc":"2.0","id":7.0,"method":"ping"}\n');
    await until(() => h.received.length === 2 && h.out.length === 1);
    expect(JSON.parse(h.out[0]!)).toMatchObject({ id: 7, error: { code: -32600 } });
  });

  it("T3-14: a cancelled request's id is free again (the SDK sends no answer to it)", async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await until(() => h.received.length === 3);
    expect(h.out).toEqual([]);
  });

  it("T3-15: answers ids JSON.parse would change with the exact token sent, and keeps apart ids that parse alike", async () => {
    const h = harness();
    const ids = ["9007199254740993", "9007199254740992", "12345678901234567890123", "1e22", "42"];
    h.input.write(ids.map((id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`).join(""));
    await until(() => h.received.length === 5);
    expect(h.out).toEqual([]);
    const seen = h.received.map((m) => (m as { id: unknown }).id);
    expect(seen[4]).toBe(42); // a safe integer is handed over as is
    for (const i of [0, 1, 2, 3]) expect(seen[i]).toMatch(/^hostgate-raw-id:/);
    for (const id of [...seen].reverse()) await h.transport.send({ jsonrpc: "2.0", id: id as string, result: {} });
    expect(h.out).toEqual([...ids].reverse().map((id) => `{"jsonrpc":"2.0","id":${id},"result":{}}`));
  });

  it("T3-15: a refusal made by the transport carries the exact token too, and a cancellation by raw id reaches the SDK", async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":12345678901234567890123,"method":"x"}\n{"jsonrpc":"2.0","id":12345678901234567890123,"method":"x"}\n');
    await until(() => h.out.length === 1);
    expect(h.out[0]).toMatch(/^\{"jsonrpc":"2.0","id":12345678901234567890123,"error":\{"code":-32600/);
    h.input.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345678901234567890123}}\n');
    await until(() => h.received.length === 2);
    const stand = (h.received[0] as { id: string }).id;
    expect(h.received[1]).toEqual({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: stand } });
  });

  it("T3-15: a fractional id that parsing changed is refused with id null, never answered with another number", async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":0.10000000000000000001,"method":"ping"}\n');
    await until(() => h.out.length === 1);
    expect(JSON.parse(h.out[0]!)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("0.10000000000000000001") as unknown } });
    expect(h.received).toEqual([]);
  });

  it("T3-16: a string id stays a string", async () => {
    const h = harness();
    h.input.write('{"jsonrpc":"2.0","id":"1","method":"ping"}\n');
    await until(() => h.received.length === 1);
    await h.transport.send({ jsonrpc: "2.0", id: "1", result: {} });
    expect(h.out).toEqual(['{"jsonrpc":"2.0","id":"1","result":{}}']);
  });
});
