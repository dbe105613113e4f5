/**
 * Fuzz of the stdio front: 10,000 generated JSON-RPC lines (valid, malformed, odd `_meta`, odd ids, odd
 * params) written to one `hostgate mcp`. Every request with a valid id must be answered exactly once, nothing
 * may be answered that was not asked, the process must still serve a ping afterwards, and it must exit within
 * 2 s of stdin closing. The generator is seeded: a failure names the seed and the line.
 */
import { afterAll, describe, expect, it } from "vitest";
import { isolatedEnv } from "../helpers/isolated-env.ts";
import { RawStdio } from "../helpers/raw-stdio.ts";

const COUNT = 10_000;
const SEED = Number(process.env.HOSTGATE_FUZZ_SEED ?? 20261201);

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with HOSTGATE_FUZZ_SEED. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Generated { line: string; id?: string | number; kind: "request" | "notification" | "response" | "garbage" | "bad_id" }

function generator(seed: number): (n: number) => Generated {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const odd = [{}, [], [1], null, true, false, 0, -1, 1.5, "x", "", { a: { b: [null] } }, "\u0000", "é😀", 1e308];
  const metas: unknown[] = [undefined, {}, { progressToken: "tok" }, { progressToken: 7 }, { progressToken: {} }, { progressToken: [1] },
    { progressToken: null }, { progressToken: true }, { progressToken: 1.5 }, [], null, "meta", 3, { "dev.x/y": [1, 2] }, { progressToken: "t", extra: {} }];
  const methods = ["ping", "tools/list", "tools/call", "tools/call", "resources/list", "resources/templates/list", "resources/read",
    "prompts/list", "initialize", "logging/setLevel", "completion/complete", "no/such/method", "sampling/createMessage", "", "tools/List", "$/x"];
  const tools = ["get_load", "get_memory_usage", "get_system_info", "no_such_tool", "", "plan_command", "history", "GET_LOAD", "get_load\u0000"];
  const idFor = (n: number): string | number => pick([n, -n - 1, n + 0.5, `s${n}`, `${n}-é😀 ${"x".repeat(n % 40)}`, `\t${n}`, 1e6 + n]);
  const paramsFor = (method: string, n: number): unknown => {
    const meta = pick(metas);
    const base: Record<string, unknown> = {};
    if (method === "tools/call") {
      base.name = pick([...tools, 5, null]);
      base.arguments = pick([{}, {}, { limit: 3 }, { bogus: 1 }, "{}", [], null, { command: `echo ${n}` }, { unit: "a".repeat(n % 300) }]);
    } else if (method === "resources/read") {
      base.uri = pick(["systemd://units", "systemd://unit/ssh.service", "file:///etc/shadow", "", 5, "systemd://unit/%00"]);
    } else if (method === "initialize") {
      Object.assign(base, { protocolVersion: pick(["2025-06-18", "1900-01-01", 3]), capabilities: pick([{}, null]), clientInfo: { name: "fuzz", version: "1" } });
    } else if (method === "logging/setLevel") {
      base.level = pick(["debug", "nonsense", 1]);
    }
    if (meta !== undefined) base._meta = meta;
    return rand() < 0.05 ? pick(odd) : base;
  };
  return (n) => {
    const r = rand();
    if (r < 0.08) {
      return { kind: "garbage", line: pick(["{", "}", "[", "nul", "{\"jsonrpc\":\"2.0\",\"id\":1,", "\"str", "{'a':1}", "\u00ff\u00fe", "[]", "123", "\"s\"", "null", "{}", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"]) };
    }
    if (r < 0.13) {
      return { kind: "bad_id", line: JSON.stringify({ jsonrpc: "2.0", id: pick([null, {}, [1], true, false]), method: pick(methods) }) };
    }
    if (r < 0.25) {
      // Cancellations name ids never used, so no generated request is legitimately left unanswered.
      const method = pick(["notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/roots/list_changed", "notifications/x"]);
      const params = method === "notifications/cancelled" ? { requestId: `never-${n}` } : pick([undefined, {}, { _meta: pick(metas) }, { progressToken: {}, progress: "x" }]);
      return { kind: "notification", line: JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }) };
    }
    if (r < 0.3) {
      return { kind: "response", line: JSON.stringify(pick([{ jsonrpc: "2.0", id: `r${n}`, result: {} }, { jsonrpc: "2.0", id: n, error: { code: 1, message: "x" } }, { jsonrpc: "2.0", id: null, error: { code: -1, message: "y" } }])) };
    }
    const id = idFor(n);
    const method = pick(methods);
    const params = paramsFor(method, n);
    const msg: Record<string, unknown> = { jsonrpc: rand() < 0.03 ? pick(["1.0", 2, null]) : "2.0", id, method };
    if (params !== undefined && rand() < 0.97) msg.params = params;
    const text = JSON.stringify(msg);
    return { kind: "request", id, line: rand() < 0.05 ? `${text}\r` : rand() < 0.05 ? `  ${text}  ` : text };
  };
}

const key = (id: unknown): string => JSON.stringify(id);

describe("stdio fuzz", () => {
  const stdio = new RawStdio([], isolatedEnv("fuzz"));
  afterAll(async () => { await stdio.stop(); });

  it(`answers each of ${COUNT} generated requests exactly once, stays alive, exits on EOF (seed ${SEED})`, async () => {
    await stdio.initialize();
    const gen = generator(SEED);
    const expected = new Map<string, string>();
    let garbage = 0;
    const lines: string[] = [];
    for (let n = 0; n < COUNT; n++) {
      const g = gen(n);
      if (g.kind === "request") expected.set(key(g.id), g.line);
      if (g.kind === "garbage" && !/^\s*[[{]\s*$/.test(g.line)) garbage++;
      lines.push(g.line);
    }
    const before = stdio.lines.length;
    // Written in slices so the pipe's back-pressure is respected.
    for (let i = 0; i < lines.length; i += 200) {
      const ok = stdio.child.stdin.write(`${lines.slice(i, i + 200).join("\n")}\n`);
      if (!ok) await new Promise<void>((r) => { stdio.child.stdin.once("drain", r); });
    }
    stdio.send(JSON.stringify({ jsonrpc: "2.0", id: "fuzz-done", method: "ping" }));
    await stdio.waitFor((m) => m.id === "fuzz-done", 120_000);
    // Answers to slow requests may follow the ping's: wait until every expected id is in (or the deadline).
    const answers = new Map<string, number>();
    let nullAnswers = 0;
    let seen = before;
    const deadline = Date.now() + 60_000;
    const consume = (): void => {
      for (; seen < stdio.lines.length; seen++) {
        const m = JSON.parse(stdio.lines[seen]!) as { id?: unknown; result?: unknown; error?: { code: unknown; message: unknown } };
        expect(m).toHaveProperty("jsonrpc", "2.0");
        expect("result" in m !== "error" in m, stdio.lines[seen]).toBe(true);
        if (m.error) expect(typeof m.error.code === "number" && typeof m.error.message === "string", stdio.lines[seen]).toBe(true);
        if (m.id === null) nullAnswers++;
        else answers.set(key(m.id), (answers.get(key(m.id)) ?? 0) + 1);
      }
    };
    for (;;) {
      consume();
      if ([...expected.keys()].every((k) => answers.has(k)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const missing = [...expected].filter(([k]) => !answers.has(k)).map(([, line]) => line);
    expect(missing.slice(0, 5), `${missing.length} requests unanswered (seed ${SEED})`).toEqual([]);
    const twice = [...answers].filter(([, c]) => c > 1).map(([k]) => k);
    expect(twice.slice(0, 5), "answered more than once").toEqual([]);
    const unasked = [...answers.keys()].filter((k) => !expected.has(k) && k !== key("fuzz-done") && k !== key("init"));
    expect(unasked.slice(0, 5), "answers to ids never sent").toEqual([]);
    expect(nullAnswers).toBeGreaterThanOrEqual(garbage);
    stdio.send(JSON.stringify({ jsonrpc: "2.0", id: "alive", method: "ping" }));
    expect(await stdio.waitFor((m) => m.id === "alive")).toHaveProperty("result");
    const exit = await stdio.endInput();
    expect(exit.code).toBe(0);
    expect(exit.ms).toBeLessThan(2_000);
  }, 240_000);
});
