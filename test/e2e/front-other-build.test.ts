/**
 * A stdio front lists its tools from its own build's table before any daemon exists (issue 14, cold start).
 * When, before it starts the embedded daemon, another front of the user starts it, and that front is another
 * hostgate build (an upgrade in place while an older client still runs), the daemon this front then joins
 * serves another catalogue than the one the client was given. It must say so instead of serving answers that
 * do not match the listed tools.
 *
 * "Another build" is a copy of dist/ whose table describes get_load differently: the other daemon's `describe`
 * answers from its table, as a real older build's would from its own sources.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Prebuilt } from "../../src/ipc/prebuilt.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";
import { RawStdio } from "../helpers/raw-stdio.ts";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
let other = "";
let started: { stop(): Promise<void> }[] = [];

beforeAll(() => {
  if (!existsSync(join(DIST, "prebuilt.json"))) throw new Error("dist/prebuilt.json is missing: run `npm run build` first (npm test does).");
  // Inside the checkout, so the copy's packages resolve from the same node_modules.
  other = mkdtempSync(join(DIST, "..", ".dist-other-build-"));
  cpSync(DIST, other, { recursive: true });
  const table = JSON.parse(readFileSync(join(other, "prebuilt.json"), "utf8")) as Prebuilt;
  table.actions.GetLoad!.description = `${table.actions.GetLoad!.description} (other build)`;
  writeFileSync(join(other, "prebuilt.json"), JSON.stringify(table));
});
afterAll(() => { if (other) rmSync(other, { recursive: true, force: true }); });
afterEach(async () => {
  await Promise.all(started.map((s) => s.stop()));
  started = [];
});

const until = async (what: string, ok: () => boolean, front: RawStdio): Promise<void> => {
  for (const end = Date.now() + 30_000; !ok();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; stderr:\n${front.stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};
const getLoad = async (raw: RawStdio, id: string): Promise<{ isError?: boolean; content: { text: string }[] }> => {
  raw.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_load", arguments: {} } }));
  return (await raw.waitFor((m) => m.id === id, 30_000)).result as { isError?: boolean; content: { text: string }[] };
};

/**
 * Starts a front of this build and one of `bin` at once on fresh state: `bin`'s asks for its tools at once (and
 * so starts the daemon), this build's only initializes (it would start the daemon a second later), then calls
 * get_load. A run where this front still won the race, or located the daemon already listening, proves
 * nothing: it is tried again on fresh state.
 */
async function joinAfterListing(bin: string): Promise<{ env: Record<string, string>; mine: RawStdio; theirs: RawStdio; r: Awaited<ReturnType<typeof getLoad>> }> {
  for (let attempt = 1; ; attempt++) {
    const env = isolatedEnv("join-after-listing");
    const mine = new RawStdio([], env);
    const theirs = new RawStdio([], env, bin);
    started.push(mine, theirs);
    theirs.send(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "other", version: "1" } } }));
    theirs.send(JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" }));
    await mine.initialize();
    await until("a daemon", () => /embedded daemon; approve with|using this user's running embedded daemon/.test(theirs.stderr), theirs);
    const r = await getLoad(mine, "load");
    const listedFirst = mine.stderr.indexOf("serving") < mine.stderr.indexOf("using this user's running embedded daemon");
    if (theirs.stderr.includes("embedded daemon; approve with") && listedFirst) return { env, mine, theirs, r };
    if (attempt === 5) throw new Error(`this front never joined the other daemon after listing its tools; stderr:\n${mine.stderr}`);
    await Promise.all(started.map((s) => s.stop()));
    started = [];
  }
}

describe("a front that lists its tools, then joins a daemon another front started", () => {
  it("of another build: answers its calls unavailable, saying why and how to fix it; a front started then lists that daemon's tools; once that front exits, this one serves again", async () => {
    const { env, mine, theirs, r } = await joinAfterListing(join(other, "hostgate.js"));
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toContain("listed its tools from another hostgate catalogue than the one the embedded daemon it now uses");
    expect(r.content[0]!.text).toContain(join(env.HOSTGATE_RUNTIME_DIR!, "agent.sock"));
    expect(r.content[0]!.text).toContain("Restart this MCP server");
    expect(mine.stderr).toContain("(run by another front) serves another catalogue than the tools this front listed");

    // The fix the message gives: a front started while that daemon runs lists what it serves, and works.
    const restarted = new RawStdio([], env);
    started.push(restarted);
    await restarted.initialize();
    restarted.send(JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" }));
    const list = (await restarted.waitFor((m) => m.id === "list")).result as { tools: { name: string; description: string }[] };
    expect(list.tools.find((t) => t.name === "get_load")?.description).toContain("(other build)");
    expect((await getLoad(restarted, "load2")).isError).toBeFalsy();
    expect((await getLoad(mine, "load3")).isError).toBe(true);

    // The other build's front goes away: its daemon is taken over by a front of this build, and this front,
    // whose list is this build's, serves again without a restart.
    await theirs.stop();
    const after = await getLoad(mine, "load4");
    expect(after.isError, after.content[0]?.text).toBeFalsy();
    expect(mine.stderr.match(/serves another catalogue than the tools this front listed/g)).toHaveLength(1);
  });

  it("a front that listed an older front's daemon, then runs its own build's daemon after that front exits, says so instead of serving", async () => {
    const env = isolatedEnv("takeover-other-build");
    const theirs = new RawStdio([], env, join(other, "hostgate.js"));
    started.push(theirs);
    await theirs.initialize();
    theirs.send(JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" }));
    await until("the other build's daemon", () => theirs.stderr.includes("embedded daemon; approve with"), theirs);
    const mine = new RawStdio([], env);
    started.push(mine);
    await mine.initialize();
    mine.send(JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list" }));
    const list = (await mine.waitFor((m) => m.id === "list")).result as { tools: { name: string; description: string }[] };
    expect(list.tools.find((t) => t.name === "get_load")?.description).toContain("(other build)");
    expect((await getLoad(mine, "a")).isError).toBeFalsy();

    await theirs.stop();
    const r = await getLoad(mine, "b");
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toContain("listed its tools from another hostgate catalogue");
    expect(mine.stderr).toContain("(run by this front now) serves another catalogue than the tools this front listed");
  });

  it("of its own build: serves normally", async () => {
    const { r } = await joinAfterListing(join(DIST, "hostgate.js"));
    expect(r.isError, r.content[0]?.text).toBeFalsy();
  });
});
