/**
 * Every witness hostgate prints must verify when the user runs the command it gives (newcomer report): the
 * approval's and execute's `hostgate audit verify --witness seq:hash`, run as printed, against the real daemon's
 * state directory, with the real CLI.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveViaPty, rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";

let daemon: DaemonProcess;
const work = mkdtempSync(join(tmpdir(), `hg-witness-polish-${process.pid}-`));

/** Runs the command line the CLI printed (after `hostgate`), with the daemon's state directory. */
function runPrinted(commandLine: string): { code: number | null; out: string } {
  const args = commandLine.trim().split(/\s+/).slice(1);
  const r = spawnSync(process.execPath, [HOSTGATE_BIN, ...args], { env: { ...process.env, ...daemon.env }, encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
}

interface Step { transaction_id: string; action_name: string; params: Record<string, unknown> }

async function planWrite(name: string): Promise<Step> {
  const target = join(work, name);
  writeFileSync(target, "old\n");
  const r = await rawIpc(daemon.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path: target, content: "new\n" } }] });
  const s = (r.result as { value: { steps: Step[] } }).value.steps[0]!;
  return { transaction_id: s.transaction_id, action_name: s.action_name, params: s.params };
}

describe("the witness hostgate approve prints", () => {
  beforeAll(async () => {
    daemon = await startDaemon("backend:\n  type: mock\napproval:\n  same_user: allow\n");
  });
  afterAll(async () => { await daemon?.stop(); });

  it("says what the printed command answers now and later, and each answer is the one it said", async () => {
    const step = await planWrite("a.txt");
    const r = await approveViaPty(daemon.adminSocket, step.transaction_id);
    expect(r.receipt, r.output).not.toBeNull();
    const printed = /`(hostgate audit verify --witness (\d+):\S+)`/.exec(r.output);
    expect(printed, r.output).not.toBeNull();
    const seq = printed![2]!;
    const said = r.output.replace(/\s+/g, " ");
    expect(said).toContain("intact (exit 0) while nothing newer is recorded");
    expect(said).toContain(`unanchored (exit 3) with "the witness at seq ${seq} matches"`);

    // At once: the approval is the newest entry.
    const now = runPrinted(printed![1]!);
    expect(now.out).toMatch(/^intact/);
    expect(now.code).toBe(0);

    // After the execute: exit 3, saying the witness matches, as approve said; execute's own witness is intact.
    const done = await rawIpc(daemon.agentSocket, "execute", { steps: [{ ...step, approval_receipt: r.receipt }] });
    const exec = (done.result as { value: unknown }).value as { results: { status: string }[]; checkpoint: { seq: number; hash: string } };
    expect(exec.results[0]!.status).toBe("succeeded");
    const later = runPrinted(printed![1]!);
    expect(later.code).toBe(3);
    expect(later.out).toContain(`the witness at seq ${seq} matches`);
    const newest = runPrinted(`hostgate audit verify --witness ${exec.checkpoint.seq}:${exec.checkpoint.hash}`);
    expect(newest.out).toMatch(/^intact/);
    expect(newest.code).toBe(0);
  });
});
