/**
 * The stdio front answers the handshake before its embedded daemon exists (issue 14, cold start): the tool
 * list comes from the build's table, and the daemon is composed after tools/list is answered, on the first
 * call that needs it, or a second after start. These tests pin the behaviour a user sees, not timings.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isolatedEnv } from "../helpers/isolated-env.ts";
import { RawStdio } from "../helpers/raw-stdio.ts";

let started: RawStdio[] = [];
afterEach(async () => {
  await Promise.all(started.map((r) => r.stop()));
  started = [];
});
const front = (env: Record<string, string>): RawStdio => {
  const raw = new RawStdio([], env);
  started.push(raw);
  return raw;
};
const call = (raw: RawStdio, id: string, name: string): Promise<Record<string, unknown>> => {
  raw.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } }));
  return raw.waitFor((m) => m.id === id, 30_000);
};

describe("the stdio front's start", () => {
  it("lists its tools first, then starts the embedded daemon, which serves the calls", async () => {
    const raw = front(isolatedEnv("front-start"));
    await raw.initialize();
    raw.send(JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" }));
    const list = await raw.waitFor((m) => m.id === "list");
    const names = ((list.result as { tools: { name: string }[] }).tools).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["get_load", "get_disk_usage", "plan", "execute"]));
    const r = await call(raw, "load", "get_load");
    expect((r.result as { isError?: boolean }).isError).toBeFalsy();
    const serving = raw.stderr.indexOf("serving");
    const daemon = raw.stderr.indexOf("embedded daemon; approve with");
    expect(serving).toBeGreaterThanOrEqual(0);
    expect(daemon).toBeGreaterThan(serving);
  });

  it("starts the daemon for a tool call that comes before any tools/list", async () => {
    const raw = front(isolatedEnv("front-start-call"));
    await raw.initialize();
    const r = await call(raw, "mem", "get_memory_usage");
    expect((r.result as { isError?: boolean }).isError).toBeFalsy();
    expect((r.result as { structuredContent: Record<string, unknown> }).structuredContent).toHaveProperty("total_bytes");
  });

  it("starts the daemon on its own when the client only initializes, so `hostgate approve` can reach it", async () => {
    const env = isolatedEnv("front-start-idle");
    const raw = front(env);
    await raw.initialize();
    for (const end = Date.now() + 20_000; !raw.stderr.includes("embedded daemon; approve with");) {
      if (Date.now() > end) throw new Error(`the daemon never started; stderr:\n${raw.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(raw.stderr).toContain(join(env.HOSTGATE_RUNTIME_DIR!, "admin.sock"));
  });

  it("answers every call `unavailable` with the reason when the daemon cannot start, and keeps serving", async () => {
    const env = isolatedEnv("front-start-fail");
    // The daemon's sockets go in its runtime directory: under a regular file it cannot be made.
    const blocker = join(env.HOSTGATE_STATE_DIR!, "..", "not-a-dir");
    writeFileSync(blocker, "");
    const raw = front({ ...env, HOSTGATE_RUNTIME_DIR: join(blocker, "run") });
    await raw.initialize();
    raw.send(JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" }));
    await raw.waitFor((m) => m.id === "list");
    for (const id of ["a", "b"]) {
      const r = await call(raw, id, "get_load");
      const result = r.result as { isError?: boolean; content: { text: string }[] };
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toContain("could not start");
      expect(result.content[0]!.text).toContain("not-a-dir");
    }
    raw.send(JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" }));
    expect((await raw.waitFor((m) => m.id === "ping")).result).toEqual({});
    expect(raw.stderr).toContain("the embedded daemon could not start");
  });
});
