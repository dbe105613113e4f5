/**
 * No front breaks another (issue 14): three `hostgate mcp` fronts of one user share one embedded daemon, run by
 * the first. They are stopped in every order (SIGKILL and stdin EOF alternately) while each live front keeps
 * calling tools; every call answered by a front that is still alive must succeed, including the calls that were
 * in flight at the daemon's front when it died (the survivors take over and send them again).
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { approveViaPty } from "../helpers/daemon.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";
import { RawStdio } from "../helpers/raw-stdio.ts";

const ORDERS = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];

interface Front { raw: RawStdio; name: string; ok: number; failures: string[]; alive: boolean; loop: Promise<void> }

let started: RawStdio[] = [];
afterEach(async () => {
  await Promise.all(started.map((r) => r.stop()));
  started = [];
});

/** Calls tools (read-only ones, alternating) one after the other until the front is stopped. */
async function callLoop(f: Front): Promise<void> {
  const tools = ["get_load", "get_memory_usage", "history", "doctor"];
  for (let n = 0; f.alive; n++) {
    const id = `c${n}`;
    f.raw.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: tools[n % tools.length], arguments: {} } }));
    let m: Record<string, unknown>;
    try {
      m = await f.raw.waitFor((x) => x.id === id, 20_000);
    } catch (err) {
      if (f.alive) f.failures.push(`${f.name} ${id}: no answer (${(err as Error).message.slice(0, 200)})`);
      return;
    }
    const result = m.result as { isError?: boolean; content?: { text: string }[] } | undefined;
    if (!f.alive) return;
    if (!result || result.isError) f.failures.push(`${f.name} ${id} ${tools[n % tools.length]}: ${JSON.stringify(m).slice(0, 300)}`);
    else f.ok++;
  }
}

async function start(name: string, env: Record<string, string>): Promise<Front> {
  const raw = new RawStdio([], env);
  started.push(raw);
  await raw.initialize();
  const f: Front = { raw, name, ok: 0, failures: [], alive: true, loop: Promise.resolve() };
  f.loop = callLoop(f);
  return f;
}

/** Waits until every live front has answered `n` more calls. */
async function progress(fronts: Front[], n: number): Promise<void> {
  const live = fronts.filter((f) => f.alive);
  const target = live.map((f) => f.ok + n);
  for (const end = Date.now() + 30_000; live.some((f, i) => f.ok < target[i]! && f.failures.length === 0);) {
    if (Date.now() > end) throw new Error(`no progress: ${live.map((f) => `${f.name}=${f.ok}`).join(" ")}; stderr of the live fronts:\n${live.map((f) => f.raw.stderr.slice(-1500)).join("\n---\n")}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("fronts stopped in every order while calls run", () => {
  it.each(ORDERS.map((o, i) => [o.join(" → "), o, i] as const))("order %s", async (_label, order, i) => {
    const env = isolatedEnv(`takeover${i}`);
    const first = await start("A", env);
    await first.raw.waitFor(() => first.raw.stderr.includes("embedded daemon;"), 20_000).catch(() => undefined);
    const fronts = [first, await start("B", env), await start("C", env)];
    expect(fronts[1]!.raw.stderr + fronts[2]!.raw.stderr).toContain("using this user's running embedded daemon");
    await progress(fronts, 3);
    for (const [k, idx] of order.entries()) {
      const f = fronts[idx]!;
      f.alive = false;
      if ((i + k) % 2 === 0) await f.raw.stop();
      else expect((await f.raw.endInput()).ms).toBeLessThan(2_000);
      await progress(fronts, 3);
    }
    for (const f of fronts) {
      await f.loop;
      expect(f.failures.join("\n"), f.name).toBe("");
    }
    expect(fronts.reduce((a, f) => a + f.ok, 0)).toBeGreaterThan(12);
  }, 120_000);
});

describe("approve finds the fronts' daemon by the same rule", () => {
  it("reaches the embedded daemon a front runs, and a missing transaction names the socket asked and the other", async () => {
    const env = isolatedEnv("approve-rule");
    const front = await start("A", env);
    front.alive = false;
    await front.loop;
    front.raw.send(JSON.stringify({ jsonrpc: "2.0", id: "p", method: "tools/call", params: { name: "plan", arguments: { steps: [{ action: "WriteFile", params: { path: join(env.HOSTGATE_STATE_DIR!, "..", "motd"), content: "x\n" } }] } } }));
    const planned = await front.raw.waitFor((m) => m.id === "p");
    const txid = ((planned.result as { structuredContent: { steps: { transaction_id: string }[] } }).structuredContent.steps[0]!).transaction_id;
    const found = await approveViaPty(null, txid, "no", env);
    expect(found.output).toContain(txid);
    expect(found.output).toContain("Not approved");
    const missing = await approveViaPty(null, "tx_not_here", undefined, env);
    expect(missing.output).toContain(`Asked the daemon at ${join(env.HOSTGATE_RUNTIME_DIR!, "admin.sock")}`);
    expect(missing.output).toContain("--socket");
  }, 60_000);
});
