import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { previewHashInput } from "../../src/core/transaction/preview-hash.ts";
import { startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { ipcFromProcess, NOBODY, type Reply } from "../helpers/ipc-from-process.ts";

/**
 * Red team, route "plan as a probe of a root-only area" (issue 12, second pass). Production setup: `hostgate
 * daemon` as root, the model as nobody in the agent group. The model cannot traverse `secret/` (0700 root), so
 * whether a path in it exists, what it is and what it holds are facts it cannot read: `plan` must answer the same
 * whatever they are, and the preview_hash it is given must not be recomputable from a guess.
 */
const tally = { attempts: 0, facts_recovered: 0 };
let daemon: DaemonProcess;
let secret: string;
let work: string;

/** These routes always reach the socket: the reply is never a connect error. */
type OkReply = Exclude<Reply, { connect_error: string }>;

/** One daemon-protocol request from a separate process without a terminal, as `uid`. */
function ipcAs(socket: string, method: string, params: unknown, uid?: number): Promise<OkReply> {
  tally.attempts++;
  return ipcFromProcess(socket, method, params, uid === undefined ? {} : { uid }) as Promise<OkReply>;
}

async function planAsModel(path: string, content = "x\n"): Promise<OkReply> {
  return ipcAs(daemon.agentSocket, "plan", { steps: [{ action: "WriteFile", params: { path, content } }] }, NOBODY);
}

/** The model's answer with the per-plan parts (plan id, transaction id, hash, expiry) and the path itself masked. */
function shape(r: Reply, path: string): string {
  const masked = JSON.stringify(r).replaceAll(path, "<path>");
  // The plan id is in plan_id and in the `next` text (`hostgate approve <plan_id>`).
  const planId = /"plan_id":"([^"]+)"/.exec(masked)?.[1];
  const unplanned = planId === undefined ? masked : masked.replaceAll(planId, "<plan_id>");
  return unplanned.replace(/"transaction_id":"[^"]+"/g, "").replace(/"preview_hash":"[^"]+"/g, "").replace(/"expires_at":"[^"]+"/g, "");
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "hg-rtrust-oracle-"));
  chmodSync(dir, 0o755);
  work = mkdtempSync(join(tmpdir(), "hg-rtrust-oracle-work-"));
  secret = join(work, "secret");
  mkdirSync(secret, { mode: 0o700 });
  daemon = await startDaemon("backend:\n  type: mock\ndaemon:\n  agent_group: nogroup\n", { dir });
});
afterAll(async () => {
  await daemon?.stop();
  rmSync(work, { recursive: true, force: true });
  process.stderr.write(`red team (plan oracles): ${JSON.stringify(tally)}\n`);
});

describe("route: WriteFile plan errors as a probe of paths the model cannot reach", () => {
  it("a missing directory, a file as directory, a symlink, a directory, a FIFO, a 2 MiB file, a regular file and an absent file all answer alike", async () => {
    writeFileSync(join(secret, "regular"), "pin=4242\n", { mode: 0o600 });
    writeFileSync(join(secret, "big"), Buffer.alloc(2 * 1024 * 1024, 0x61), { mode: 0o600 });
    mkdirSync(join(secret, "adir"));
    symlinkSync("/etc/passwd", join(secret, "link"));
    symlinkSync("/etc/hostgate-nope", join(secret, "dirlink"));
    expect(spawnSync("mkfifo", [join(secret, "fifo")]).status).toBe(0);
    const paths = ["nodir/x", "regular/x", "link", "adir", "fifo", "big", "regular", "absent"].map((p) => join(secret, p));
    const shapes = new Map<string, string[]>();
    for (const path of paths) {
      const r = await planAsModel(path);
      expect(r.ok, `${path}: ${JSON.stringify(r)}`).toBe(true);
      const s = shape(r, path);
      shapes.set(s, [...(shapes.get(s) ?? []), path]);
    }
    if (shapes.size > 1) tally.facts_recovered += shapes.size - 1;
    expect([...shapes.values()]).toHaveLength(1);
  });

  it("a resolved path hostgate protects (a symlinked directory into the state dir) is planned blind too; the approver sees why and execute refuses", async () => {
    const link = join(secret, "to-state");
    symlinkSync(join(daemon.dir, "state"), link);
    const r = await planAsModel(join(link, "state.db"));
    expect(r.ok).toBe(true);
    const step = (r.value!.steps as Record<string, unknown>[])[0]!;
    const shown = await ipcAs(daemon.adminSocket, "show", { transaction_id: step.transaction_id });
    expect(JSON.stringify(shown)).toMatch(/CANNOT BE APPLIED: .*hostgate/);
    expect(JSON.stringify(r)).not.toMatch(/CANNOT|protect|state\.db is|resolv/i);
  });
});

describe("route: the preview_hash as an offline oracle on hidden state", () => {
  it("two plans of the same write over an unchanged root-only file get different hashes (no change detector)", async () => {
    const path = join(secret, "regular");
    const a = await planAsModel(path);
    const b = await planAsModel(path);
    const ha = (a.value!.steps as Record<string, unknown>[])[0]!.preview_hash;
    const hb = (b.value!.steps as Record<string, unknown>[])[0]!.preview_hash;
    if (ha === hb) tally.facts_recovered++;
    expect(ha).not.toBe(hb);
  });

  it("the hash cannot be recomputed from the exact preview (what a correct guess of the file would rebuild)", async () => {
    const path = join(secret, "regular");
    const r = await planAsModel(path);
    const step = (r.value!.steps as Record<string, unknown>[])[0]!;
    const shown = await ipcAs(daemon.adminSocket, "show", { transaction_id: step.transaction_id });
    const preview = (shown.value as { steps: { preview: Parameters<typeof previewHashInput>[3] }[] }).steps[0]!.preview;
    expect(JSON.stringify(preview)).toContain("pin=4242"); // the approver's preview holds the file
    const rebuilt = createHash("sha256").update(previewHashInput("WriteFile", "local", step.params as Record<string, unknown>, preview, null)).digest("hex");
    if (rebuilt === step.preview_hash) tally.facts_recovered++;
    expect(step.preview_hash).not.toBe(rebuilt);
  });
});
