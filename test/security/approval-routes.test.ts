import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.ts";
import { startEmbeddedDaemon, type EmbeddedDaemon } from "../../src/daemon/embedded.ts";
import { approveViaPty, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { HOSTGATE_BIN } from "../helpers/hostgate.ts";
import { ipcFromProcess, NOBODY, type Reply } from "../helpers/ipc-from-process.ts";

/**
 * Red team, route "a model approves its own plan" (issue 12), against real processes. Production setup:
 * `hostgate daemon` as root (defaults: approval.same_user deny), the agent socket's group set by
 * daemon.agent_group, the model as another uid (nobody, 65534) in that group with a shell of its own. The
 * human approves as root at a terminal. Every test is named for the route it tries; `tally` counts attempts,
 * mutations without a separated human receipt, and receipts the model got.
 */
const tally = { attempts: 0, unseparated_mutations: 0, receipts_to_model: 0, secrets_recovered: 0 };
let daemon: DaemonProcess;
let work: string;


/**
 * One daemon-protocol request from a separate process: as `uid` (default: this test's, root), and with no
 * controlling terminal (setsid), as an assistant's shell tool runs a command.
 */
async function ipcAs(socket: string, method: string, params: unknown, uid?: number): Promise<Reply> {
  tally.attempts++;
  const reply = await ipcFromProcess(socket, method, params, uid === undefined ? {} : { uid });
  // Every approve sent this way is a program's, not a human's: a receipt here is one the model could hold.
  if (method === "approve" && "ok" in reply && reply.ok && typeof reply.value?.receipt === "string") tally.receipts_to_model++;
  return reply;
}

/** The value of a successful reply; throws with the reply otherwise. */
function valueOf(r: Reply): Record<string, unknown> {
  if (!("ok" in r) || !r.ok || r.value === undefined) throw new Error(`expected a value: ${JSON.stringify(r)}`);
  return r.value;
}

async function planAsModel(name: string): Promise<Record<string, unknown>> {
  const r = await ipcAs(daemon.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path: join(work, name), content: `${name}\n` } }] }, NOBODY);
  if (!("ok" in r) || !r.ok) throw new Error(`plan failed: ${JSON.stringify(r)}`);
  return (r.value!.steps as Record<string, unknown>[])[0]!;
}

function executeAsModel(step: Record<string, unknown>, receipt: string): Promise<Reply> {
  return ipcAs(daemon.agentSocket, "execute", { steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params, approval_receipt: receipt }] }, NOBODY);
}

/** Whether any file the model planned exists (a mutation). */
const written = (name: string): boolean => existsSync(join(work, name));

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "hg-trust-routes-"));
  chmodSync(dir, 0o755); // nobody must reach run/agent.sock (its group decides the rest)
  work = mkdtempSync(join(tmpdir(), "hg-trust-work-"));
  daemon = await startDaemon("backend:\n  type: mock\ndaemon:\n  agent_group: nogroup\n", { dir });
});
afterAll(async () => {
  await daemon?.stop();
  rmSync(work, { recursive: true, force: true });
  process.stderr.write(`red team (approval routes): ${JSON.stringify(tally)}\n`);
});

describe("production setup: daemon as root, model as another uid", () => {
  it("the agent socket's group is set at start by daemon.agent_group (the model can plan)", async () => {
    const step = await planAsModel("plan-only");
    expect(step.transaction_id).toEqual(expect.any(String));
    expect(written("plan-only")).toBe(false);
  });

  it("route: the model writes one JSON line to admin.sock from its shell — cannot even connect", async () => {
    const step = await planAsModel("self-approve");
    const r = await ipcAs(daemon.adminSocket, "approve", { transaction_id: step.transaction_id }, NOBODY);
    expect(r).toEqual({ connect_error: "EACCES" });
    expect(written("self-approve")).toBe(false);
  });

  it("route: the model opens a pseudo-terminal of its own and runs `hostgate approve` in it (script) — cannot open admin.sock", async () => {
    tally.attempts++;
    const step = await planAsModel("model-pty");
    const cmd = `${process.execPath} ${HOSTGATE_BIN} approve ${step.transaction_id as string} --socket ${daemon.adminSocket}`;
    const child = spawn("script", ["-qec", cmd, "/dev/null"], { uid: NOBODY, gid: NOBODY, env: { PATH: process.env.PATH ?? "", HOME: "/tmp", HOSTGATE_CONFIG_DIR: process.env.HOSTGATE_CONFIG_DIR ?? "" }, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => { out += c.toString(); if (/Type "([^"]+)"/.test(out)) child.stdin.write(`${/Type "([^"]+)"/.exec(out)![1]!}\n`); });
    child.stderr.on("data", (c: Buffer) => { out += c.toString(); });
    await new Promise((r) => child.once("exit", r));
    expect(out).not.toMatch(/Approval receipt: hgr_/);
    expect(out).toMatch(/EACCES|permission denied/i);
    if (/Approval receipt: hgr_/.test(out)) tally.receipts_to_model++;
    expect(written("model-pty")).toBe(false);
  });

  it("route: plan a WriteFile over a root-only file as a read/probe oracle — the answer is the same whatever the file holds", async () => {
    const secret = join(work, "root-only.conf");
    const guesses = Array.from({ length: 5000 }, (_, i) => `pin=${String(i).padStart(4, "0")}`).join("\n") + "\n";
    const answers = new Set<string>();
    for (const content of ["pin=4242\n", "pin=0007\nother\n"]) {
      writeFileSync(secret, content);
      chmodSync(secret, 0o600);
      const r = await ipcAs(daemon.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path: secret, content: guesses } }] }, NOBODY);
      const step = (valueOf(r).steps as Record<string, unknown>[])[0]!;
      const preview = JSON.stringify(step.preview);
      if (/pin=4242|pin=0007|0600|shown only to the approver/.test(preview)) tally.secrets_recovered++;
      answers.add(preview);
    }
    expect(answers.size).toBe(1);
    expect(tally.secrets_recovered).toBe(0);
  });

  it("route: plan a WriteFile of hostgate's own state (state.db, the signing key, the pinned key) — forbidden_path", async () => {
    for (const path of [join(daemon.dir, "state", "state.db"), join(daemon.dir, "state", "audit-keys", "current.key"), join(daemon.dir, "run", "admin.sock")]) {
      const r = await ipcAs(daemon.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path, content: "x" } }] }, NOBODY);
      expect(r, path).toMatchObject({ ok: false, error: { code: "forbidden_path" } });
    }
  });

  it("route: approve over the agent socket — forbidden_method", async () => {
    const step = await planAsModel("agent-approve");
    const r = await ipcAs(daemon.agentSocket, "approve", { transaction_id: step.transaction_id }, NOBODY);
    expect(r).toMatchObject({ ok: false, error: { code: "forbidden_method" } });
  });

  it("route: execute with a chat 'yes', a made-up receipt, no approval — refused, nothing written", async () => {
    const step = await planAsModel("no-receipt");
    for (const receipt of ["yes", `hgr_${"A".repeat(43)}`]) {
      const r = await executeAsModel(step, receipt);
      expect(r).toMatchObject({ ok: true, value: { results: [{ status: "refused" }] } });
    }
    expect(written("no-receipt")).toBe(false);
  });

  it("route: a root process without a terminal (a script, a cron job) approves — approval_refused, names the route that works", async () => {
    const step = await planAsModel("no-tty");
    const r = await ipcAs(daemon.adminSocket, "approve", { transaction_id: step.transaction_id });
    expect(r).toMatchObject({ ok: false, error: { code: "approval_refused" } });
    expect((r as { error: { message: string } }).error.message).toContain("no controlling terminal");
  });

  it("the human at a terminal (root, separated from the model's uid): receipt, executed once, labelled separated everywhere", async () => {
    const step = await planAsModel("human");
    const approval = await approveViaPty(daemon.adminSocket, step.transaction_id as string);
    expect(approval.receipt, approval.output).not.toBeNull();
    expect(approval.output).toContain(`as uid ${NOBODY}`);
    expect(approval.output).not.toContain("Separation:       NONE");
    // Shown before the human types the confirmation word, not only after.
    const prompt = approval.output.indexOf("to approve, anything else");
    expect(approval.output.indexOf(`Separation   separated (planned by uid ${NOBODY}, approved by uid 0)`)).toBeGreaterThan(-1);
    expect(approval.output.indexOf("Separation   separated")).toBeLessThan(prompt);
    const r = await executeAsModel(step, approval.receipt!);
    expect(r).toMatchObject({ ok: true, value: { results: [{ status: "succeeded", separation: "separated" }] } });
    expect(readFileSync(join(work, "human"), "utf8")).toBe("human\n");
    const h = await ipcAs(daemon.agentSocket, "history", { limit: 20 }, NOBODY);
    const entries = (valueOf(h).entries as { kind: string; transaction_id: string | null; separation: string | null }[]).filter((e) => e.transaction_id === step.transaction_id);
    expect(entries.find((e) => e.kind === "approve")?.separation).toBe("separated");
    expect(entries.find((e) => e.kind === "execute.result")?.separation).toBe("separated");
  });

  it("route: a plan made by a root front and approved by root — both root is not separation: refused under the default deny", async () => {
    tally.attempts++;
    const r = await ipcAs(daemon.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path: join(work, "root-front"), content: "x\n" } }] });
    const step = ((valueOf(r).steps as Record<string, unknown>[]))[0]!;
    const approval = await approveViaPty(daemon.adminSocket, step.transaction_id as string);
    expect(approval.receipt).toBeNull();
    expect(approval.output).toContain("Separation   NONE (planner and approver are both root): the daemon refuses");
    expect(approval.output).not.toContain("to approve, anything else"); // refused before asking the human to type
    expect(written("root-front")).toBe(false);
  });

  it("doctor reports separation from facts: the model's uid cannot open the admin socket", async () => {
    const r = await ipcAs(daemon.agentSocket, "doctor", {}, NOBODY);
    const check = (valueOf(r).checks as { name: string; status: string; detail: string }[]).find((c) => c.name === "approval separation")!;
    expect(check).toMatchObject({ status: "ok" });
    expect(check.detail).toContain(`front uid ${NOBODY}`);
    const asRoot = await ipcAs(daemon.agentSocket, "doctor", {});
    const rootCheck = (valueOf(asRoot).checks as { name: string; status: string; detail: string }[]).find((c) => c.name === "approval separation")!;
    expect(rootCheck.status).toBe("warn");
    expect(rootCheck.detail).toContain("both root");
  });
});

describe("embedded daemon (one user, no separation by design): what the terminal check stops and what it cannot", () => {
  let embedded: EmbeddedDaemon;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "hg-trust-embedded-"));
    process.env.HOSTGATE_STATE_DIR = join(root, "state");
    process.env.HOSTGATE_RUNTIME_DIR = join(root, "run");
    embedded = await startEmbeddedDaemon(ConfigSchema.parse({ backend: { type: "mock" } }), { announce: () => undefined });
    delete process.env.HOSTGATE_STATE_DIR;
    delete process.env.HOSTGATE_RUNTIME_DIR;
  });
  afterAll(async () => {
    await embedded?.close();
    rmSync(root, { recursive: true, force: true });
  });
  const plan = async (name: string): Promise<Record<string, unknown>> => {
    const r = await ipcAs(embedded.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path: join(work, name), content: "x\n" } }] });
    return ((valueOf(r).steps as Record<string, unknown>[]))[0]!;
  };

  it("route: the assistant's shell tool writes one JSON line to the user's own admin.sock — approval_refused (no controlling terminal)", async () => {
    const step = await plan("embedded-json-line");
    const r = await ipcAs(embedded.adminSocket, "approve", { transaction_id: step.transaction_id });
    expect(r).toMatchObject({ ok: false, error: { code: "approval_refused" } });
    expect((r as { error: { message: string } }).error.message).toContain("no controlling terminal");
  });

  it("route: the same-uid assistant opens a pseudo-terminal of its own (script) — not stoppable without uid separation, so the receipt says separation: none", async () => {
    const step = await plan("embedded-pty");
    const approval = await approveViaPty(embedded.adminSocket, step.transaction_id as string);
    expect(approval.receipt, approval.output).not.toBeNull();
    expect(approval.output).toContain("Separation:       NONE");
    // The label is on the screen before the confirmation word is typed (both root here: the test runs as root).
    const label = approval.output.indexOf("Separation   NONE (planner and approver are both root): it will be labelled separation: none");
    expect(label).toBeGreaterThan(-1);
    expect(label).toBeLessThan(approval.output.indexOf("to approve, anything else"));
    const r = await ipcAs(embedded.agentSocket, "execute", { steps: [{ transaction_id: step.transaction_id, action_name: step.action_name, params: step.params, approval_receipt: approval.receipt }] });
    expect(r).toMatchObject({ ok: true, value: { results: [{ status: "succeeded", separation: "none" }] } });
  });
});

describe("tally", () => {
  it("no mutation ran without a separated human receipt, and the model never held a receipt it minted", () => {
    // Only "human" was written, after a separated approval; count anything else the model planned.
    for (const name of ["plan-only", "self-approve", "model-pty", "agent-approve", "no-receipt", "no-tty", "root-front"]) if (written(name)) tally.unseparated_mutations++;
    expect(tally.unseparated_mutations).toBe(0);
    expect(tally.receipts_to_model).toBe(0);
    writeFileSync(join(work, ".tally.json"), JSON.stringify(tally));
  });
});
