/**
 * What the front trusts (issue 21): a daemon of another build is refused whatever kind it is (here one named by
 * HOSTGATE_SOCKET; a system daemon takes the same path), and an answer that does not match the outputSchema the
 * front listed is refused with a clear error instead of reaching the client (whose SDK would fail the call
 * with a bare -32602).
 *
 * "Another build" is a copy of dist/ (as in front-other-build.test.ts): with a fresh build id written into its
 * bundle, or with a table whose get_load outputSchema requires a field no daemon answers. The daemons and
 * fronts are real processes.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Prebuilt } from "../../src/ipc/prebuilt.ts";
import { VERSION } from "../../src/version.ts";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { isolatedEnv } from "../helpers/isolated-env.ts";
import { RawStdio } from "../helpers/raw-stdio.ts";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const copies: string[] = [];
let started: { stop(): Promise<void> }[] = [];
let myId = "";

/** A copy of dist/ inside the checkout (so its packages resolve), changed by `edit`. */
function copyOfDist(edit: (dir: string, table: Prebuilt) => void): string {
  const dir = mkdtempSync(join(DIST, "..", ".dist-front-trusts-"));
  copies.push(dir);
  cpSync(DIST, dir, { recursive: true });
  const table = JSON.parse(readFileSync(join(dir, "prebuilt.json"), "utf8")) as Prebuilt;
  edit(dir, table);
  writeFileSync(join(dir, "prebuilt.json"), JSON.stringify(table));
  return dir;
}

beforeAll(() => {
  myId = (JSON.parse(readFileSync(join(DIST, "prebuilt.json"), "utf8")) as Prebuilt).build_id;
});
afterAll(() => { for (const d of copies) rmSync(d, { recursive: true, force: true }); });
afterEach(async () => {
  await Promise.all(started.map((s) => s.stop()));
  started = [];
});

const getLoad = async (raw: RawStdio, id: string): Promise<Record<string, unknown>> => {
  raw.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_load", arguments: {} } }));
  return raw.waitFor((m) => m.id === id, 30_000);
};
type ToolResult = { isError?: boolean; structuredContent?: unknown; content: { text: string }[] };

describe("a daemon of another build", () => {
  it("named by HOSTGATE_SOCKET: every call answers unavailable naming both builds; restarted on this build, it is used at once", async () => {
    const otherId = randomUUID();
    const other = copyOfDist((dir, table) => {
      for (const f of readdirSync(dir).filter((n) => n.endsWith(".js"))) {
        const text = readFileSync(join(dir, f), "utf8");
        if (text.includes(myId)) writeFileSync(join(dir, f), text.replaceAll(myId, otherId));
      }
      table.build_id = otherId;
    });
    const yaml = "backend:\n  type: mock\n";
    const theirs: DaemonProcess = await startDaemon(yaml, { bin: join(other, "hostgate.js") });
    started.push(theirs);
    const front = new RawStdio([], { ...isolatedEnv("other-build-socket"), HOSTGATE_SOCKET: theirs.agentSocket });
    started.push(front);
    await front.initialize();
    const refused = (await getLoad(front, "a")).result as ToolResult;
    expect(refused.isError).toBe(true);
    const error = (JSON.parse(refused.content[0]!.text) as { error: { code: string; message: string; hint: string } }).error;
    expect(error.code).toBe("unavailable");
    expect(error.message).toContain(`runs hostgate ${VERSION} (build ${otherId}), this MCP server runs hostgate ${VERSION} (build ${myId})`);
    expect(error.message).toContain(theirs.agentSocket);
    expect(error.hint).toContain("restart the daemon");
    expect(((await getLoad(front, "b")).result as ToolResult).isError).toBe(true);
    expect(front.stderr.match(/this server does not use that daemon/g)).toHaveLength(1);

    // The fix the message names: the daemon restarted on this build, on the same socket.
    await theirs.stop();
    const mine = await startDaemon(yaml, { dir: theirs.dir });
    started.push(mine);
    const served = (await getLoad(front, "c")).result as ToolResult;
    expect(served.isError, served.content[0]?.text).toBeFalsy();
    expect(served.structuredContent).toHaveProperty("load1");
  });
});

describe("an answer that does not match the listed outputSchema", () => {
  it("is refused with protocol_error naming the tool and the mismatch, as a tool result (not a JSON-RPC -32602)", async () => {
    const other = copyOfDist((_dir, table) => {
      const schema = table.actions.GetLoad!.output_schema as { required?: string[]; properties: Record<string, unknown> };
      schema.properties.load_forecast = { type: "number" };
      schema.required = [...(schema.required ?? []), "load_forecast"];
    });
    const front = new RawStdio([], isolatedEnv("answer-check"), join(other, "hostgate.js"));
    started.push(front);
    await front.initialize();
    const answer = await getLoad(front, "a");
    expect(answer).not.toHaveProperty("error");
    const r = answer.result as ToolResult;
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toBeUndefined();
    const error = (JSON.parse(r.content[0]!.text) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("protocol_error");
    expect(error.message).toContain("answer to get_load does not match the outputSchema this MCP server listed");
    expect(error.message).toContain("load_forecast");
  });
});
