/**
 * Issue 22's "fix a full disk on the local host through a plan it approves", end to end with real processes: an
 * SDK client ↔ `hostgate mcp` ↔ `hostgate daemon`, `hostgate approve` under a pseudo-terminal, and real targets.
 * The daemon runs in a private mount namespace whose /var/log and /var/cache/apt are this test's directories, so
 * the real journalctl vacuums real journal files (written by a real journald, test/peers/journald.ts) and the
 * real apt-get clean empties a real cache, without touching this machine's own logs or cache.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/client";
import { approveViaPty, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { connectStdio } from "../helpers/hostgate.ts";
import { peerMissing } from "../helpers/peers.ts";
import { journaldPrereqs, writeJournalFiles } from "../peers/journald.ts";

type Json = Record<string, unknown>;
const missing = journaldPrereqs() ?? (existsSync("/usr/bin/apt-get") ? null : "no apt-get (a Debian-family host)");
const skip = peerMissing("disk-full remedies e2e", missing);

const work = mkdtempSync(join(tmpdir(), "hg-remedies-"));
const logDir = join(work, "log");
const aptDir = join(work, "apt");
let daemon: DaemonProcess;
let client: Client;
let journal: string;

async function tool(name: string, args: Json): Promise<{ isError: boolean; value: Json }> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as { text: string }[])[0]!.text;
  return { isError: r.isError === true, value: (r.structuredContent as Json | undefined) ?? (JSON.parse(text) as Json) };
}

/** plan → hostgate approve (pty) → execute of one step; returns the plan's step and the execute result. */
async function fix(action: string, params: Json): Promise<{ step: Json; result: Json }> {
  const plan = await tool("plan", { steps: [{ action, params }] });
  expect(plan.isError, JSON.stringify(plan.value)).toBe(false);
  const step = (plan.value.steps as Json[])[0]!;
  const approval = await approveViaPty(daemon.adminSocket, step.transaction_id as string);
  expect(approval.receipt, approval.output).not.toBeNull();
  const exec = await tool("execute", { steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params, approval_receipt: approval.receipt }] });
  expect(exec.isError, JSON.stringify(exec.value)).toBe(false);
  return { step, result: (exec.value.results as Json[])[0]! };
}

describe.skipIf(skip)("disk-full remedies through plan → approve → execute", () => {
  beforeAll(async () => {
    journal = writeJournalFiles(join(logDir, "journal"));
    writeFileSync(join(logDir, "app.log.1"), "z".repeat(200_000));
    writeFileSync(join(logDir, "busy.log"), "w".repeat(300_000));
    mkdirSync(join(aptDir, "archives", "partial"), { recursive: true });
    writeFileSync(join(aptDir, "archives", "hello_1.0_amd64.deb"), Buffer.alloc(150_000, 7));
    writeFileSync(join(aptDir, "archives", "partial", "half.deb"), Buffer.alloc(20_000, 7));
    // /run is a tmpfs too: journalctl also vacuums /run/log/journal, which is the host's.
    const wrap = ["unshare", "--mount", "--propagation", "private", "sh", "-c", 'mount --bind "$0" /var/log && mount --bind "$1" /var/cache/apt && mount -t tmpfs tmpfs /run && shift && exec "$@"', logDir, aptDir];
    daemon = await startDaemon("backend:\n  type: mock\napproval:\n  same_user: allow\n", { wrap });
    client = await connectStdio("legacy", ["--config", daemon.configPath], { HOSTGATE_SOCKET: daemon.agentSocket });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await daemon?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("get_largest_directories (a direct tool) finds the journal as the biggest directory under /var/log", async () => {
    const r = await tool("get_largest_directories", { path: "/var/log" });
    expect(r.isError, JSON.stringify(r.value)).toBe(false);
    expect((r.value.directories as Json[])[0]!.path).toBe("/var/log/journal");
    expect(r.value.complete).toBe(true);
  });

  it("VacuumJournal: real journalctl removes exactly the archived files the plan predicted; the active file stays", async () => {
    const before = readdirSync(journal);
    expect(before.filter((n) => n.includes("@"))).toHaveLength(3);
    const { step, result } = await fix("VacuumJournal", { max_size: "1K" });
    expect((step.preview as Json).summary, JSON.stringify(step.preview)).toMatch(/remove 3 archived file\(s\)/);
    const out = result.output as { removed: string[]; freed_bytes: number; usage_after_bytes: number };
    expect(out.removed.map((p) => p.split("/").pop()).sort()).toEqual(before.filter((n) => n.includes("@")).sort());
    expect(out.freed_bytes).toBeGreaterThan(0);
    expect(readdirSync(journal)).toEqual(["system.journal"]);
  });

  it("CleanPackageCache: real apt-get clean empties the cache the preview counted", async () => {
    const { step, result } = await fix("CleanPackageCache", {});
    expect((step.preview as Json).summary).toMatch(/^Clean the package cache: 2 file\(s\)/);
    expect(result.output).toMatchObject({ command: "apt-get clean", files_left: 0 });
    expect((result.output as { freed_bytes: number }).freed_bytes).toBeGreaterThanOrEqual(170_000);
    expect(readdirSync(join(aptDir, "archives")).filter((n) => n.endsWith(".deb"))).toEqual([]);
    expect(readdirSync(join(aptDir, "archives", "partial"))).toEqual([]);
  });

  it("DeleteLogFile removes a rotated log and TruncateLogFile empties a live one", async () => {
    const del = await fix("DeleteLogFile", { path: "/var/log/app.log.1" });
    expect(del.result.output).toEqual({ path: "/var/log/app.log.1", how: "delete", freed_bytes: 200_000 });
    expect(existsSync(join(logDir, "app.log.1"))).toBe(false);
    const trunc = await fix("TruncateLogFile", { path: "/var/log/busy.log" });
    expect(trunc.result.output).toEqual({ path: "/var/log/busy.log", how: "truncate", freed_bytes: 300_000 });
    expect(statSync(join(logDir, "busy.log")).size).toBe(0);
  });

  it("a journal file cannot be deleted one by one: the plan fails with the action to use instead", async () => {
    const r = await tool("plan", { steps: [{ action: "DeleteLogFile", params: { path: `/var/log/journal/x/system.journal` } }] });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.value)).toContain("VacuumJournal");
  });
});
