import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { approveViaPty, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectStdio } from "../helpers/hostgate.ts";

/**
 * Issue 24, progress for long applies: a client that sends a progressToken with `execute` gets
 * notifications/progress for each step (started, every few seconds while it runs, ended), carried from a real
 * daemon over its agent socket (progress lines before the answer) through a real stdio front. Without a token
 * nothing is sent and the answer is the same.
 */
type Json = Record<string, unknown>;
let daemon: DaemonProcess;
let client: Client;
const work = mkdtempSync(join(tmpdir(), "hg-progress-"));

async function planAndApprove(paths: string[]): Promise<Json[]> {
  const r = await client.callTool({ name: "plan", arguments: { steps: paths.map((path) => ({ action: "WriteFile", params: { path, content: `${path}\n` } })) } });
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  const value = r.structuredContent as { plan_id: string; steps: Json[] };
  const a = await approveViaPty(daemon.adminSocket, value.plan_id);
  expect(a.receipt, a.output).not.toBeNull();
  return value.steps.map((s) => ({ transaction_id: s.transaction_id, action_name: s.action_name, params: s.params, approval_receipt: a.receipt }));
}

describe("execute reports progress when the client asks for it", () => {
  beforeAll(async () => {
    daemon = await startDaemon("approval:\n  same_user: allow\n");
    client = await connectStdio("legacy", ["--config", daemon.configPath], { HOSTGATE_SOCKET: daemon.agentSocket });
  });
  afterAll(async () => {
    await client?.close();
    await daemon?.stop();
  });

  it("sends strictly growing progress with the step count and each step's action, then the same answer as ever", async () => {
    const paths = [join(work, "a.txt"), join(work, "b.txt")];
    const steps = await planAndApprove(paths);
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const r = await client.callTool({ name: "execute", arguments: { steps } }, { onprogress: (p) => { seen.push(p); } });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect((r.structuredContent as { results: { status: string }[] }).results.map((x) => x.status)).toEqual(["succeeded", "succeeded"]);
    for (const p of paths) expect(readFileSync(p, "utf8")).toBe(`${p}\n`);
    expect(seen.length).toBeGreaterThanOrEqual(4);
    for (const [i, p] of seen.entries()) {
      expect(p.total).toBe(4);
      if (i > 0) expect(p.progress).toBeGreaterThan(seen[i - 1]!.progress);
    }
    expect(seen[0]).toMatchObject({ progress: 1, message: "step 1/2 WriteFile: running" });
    expect(seen.at(-1)).toMatchObject({ progress: 4, message: "step 2/2 WriteFile: succeeded" });
  });

  it("sends none without a progressToken, and the step still runs", async () => {
    const path = join(work, "c.txt");
    const steps = await planAndApprove([path]);
    let notified = 0;
    client.setNotificationHandler("notifications/progress", () => { notified++; });
    const r = await client.callTool({ name: "execute", arguments: { steps } });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect(existsSync(path)).toBe(true);
    expect(notified).toBe(0);
  });
});
