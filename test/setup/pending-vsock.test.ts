// Against a real `hostgate daemon` process (temp state and runtime dirs): `hostgate pending` over the admin
// socket, and the MCP front's socket client over vsock://, through socat. The vsock hop itself cannot run
// here (no vsock loopback), so socat is reached through a stand-in named by HOSTGATE_SOCAT that runs the real
// socat with the VSOCK-CONNECT address replaced by the daemon's Unix socket: everything else (the vsock://
// parsing, the child process, the stream, the protocol over it) is the real path.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { socketDaemonClient } from "../../src/ipc/socket-client.ts";
import { HOSTGATE_BIN, runHostgate } from "../helpers/hostgate.ts";
import { REQUIRE_PEERS, waitFor, whichSync } from "../peers/proc.ts";

const dir = mkdtempSync(join(tmpdir(), `hg-pending-${process.pid}-`));
// Every system-daemon path in the temp dir: state, sockets, the pinned key (config dir) and the checkpoint copy.
const env = { HOSTGATE_STATE_DIR: join(dir, "state"), HOSTGATE_RUNTIME_DIR: join(dir, "run"), HOSTGATE_CONFIG_DIR: join(dir, "etc"), HOSTGATE_CHECKPOINT_COPY: join(dir, "log", "audit-checkpoints.jsonl"), HOSTGATE_SOCKET: "", HOSTGATE_ADMIN_SOCKET: "" };
const agent = join(dir, "run", "agent.sock");
const admin = join(dir, "run", "admin.sock");
let daemon: ChildProcess;

beforeAll(async () => {
  daemon = spawn(process.execPath, [HOSTGATE_BIN, "daemon"], { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  daemon.stderr!.on("data", (c: Buffer) => { err += c.toString(); });
  await waitFor("the daemon's sockets", () => existsSync(agent) && existsSync(admin), 30_000).catch((e: unknown) => { throw new Error(`${(e as Error).message}: ${err}`); });
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => { if (daemon.exitCode !== null) { resolve(); return; } daemon.once("exit", () => { resolve(); }); daemon.kill("SIGTERM"); });
  spawnSync("chattr", ["-R", "-a", dir], { stdio: "ignore" }); // the daemon may keep append-only files
  rmSync(dir, { recursive: true, force: true });
});

describe("hostgate pending", () => {
  it("lists plans with id, age, risk, host, client, step count and summary; a rejected plan leaves the list with all its steps", async () => {
    const client = socketDaemonClient(agent);
    const planned = await client.call("plan", { steps: [{ action: "WriteFile", params: { path: join(dir, "motd"), content: "hello\n" } }, { action: "WriteFile", params: { path: join(dir, "issue"), content: "\u202eevil\n" } }] });
    const other = await client.call("plan", { steps: [{ action: "WriteFile", params: { path: join(dir, "other"), content: "x\n" } }] });
    await client.close();
    if (!planned.ok || !other.ok) throw new Error("plan failed");
    const ids = planned.value.steps.map((s) => s.transaction_id);
    const r = await runHostgate(["pending", "--socket", admin], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PLAN\s+AGE\s+RISK\s+HOST\s+CLIENT\s+STEPS\s+SUMMARY/);
    expect(r.stdout).toMatch(new RegExp(`${planned.value.plan_id}\\s+\\d+[smhd]\\s+HIGH\\s+local\\s+\\S+\\s+2\\s+1\\. WriteFile: \\S.*; 2\\. WriteFile: `));
    expect(r.stdout).toMatch(new RegExp(`${other.value.plan_id}\\s+\\d+[smhd]\\s+HIGH\\s+local\\s+\\S+\\s+1\\s+WriteFile: \\S`));
    expect(r.stdout).not.toContain("\u202e");
    const json = await runHostgate(["pending", "--socket", admin, "--json"], { env });
    const listed = (JSON.parse(json.stdout) as { plans: { plan_id: string; steps: { transaction_id: string }[] }[] }).plans;
    expect(listed.find((p) => p.plan_id === planned.value.plan_id)?.steps.map((t) => t.transaction_id)).toEqual(ids);
    // Rejecting by one step's id rejects every planned step of its plan.
    const rejected = await runHostgate(["reject", ids[1]!, "--socket", admin], { env });
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toContain(`Rejected plan ${planned.value.plan_id} (2 steps)`);
    const after = await runHostgate(["pending", "--socket", admin, "--json"], { env });
    expect((JSON.parse(after.stdout) as { plans: { plan_id: string }[] }).plans.map((p) => p.plan_id)).toEqual([other.value.plan_id]);
  });

  it("is refused on the agent socket, and says so; a bad --limit is exit 2", async () => {
    const r = await runHostgate(["pending", "--socket", agent], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/pending is not available on the agent socket|forbidden/i);
    expect((await runHostgate(["pending", "--socket", admin, "--limit", "0"], { env })).code).toBe(2);
  });
});

const noSocat = whichSync("socat") === null ? "socat is not installed (apt-get install socat)" : null;
if (noSocat && REQUIRE_PEERS) throw new Error(noSocat);
if (noSocat) console.warn(`SKIP vsock client: ${noSocat}`);

describe.skipIf(noSocat !== null)("vsock:// as the daemon address", () => {
  const standIn = join(dir, "socat-stand-in");
  beforeAll(() => {
    writeFileSync(standIn, `#!/bin/sh\n# Real socat; only the VSOCK-CONNECT address (last argument) is replaced by the daemon's Unix socket.\ncase "$4" in VSOCK-CONNECT:*) ;; *) echo "unexpected address $4" >&2; exit 9 ;; esac\nexec socat "$1" "$2" "$3" "UNIX-CONNECT:${agent}"\n`);
    chmodSync(standIn, 0o755);
  });

  it("the front's socket client talks the protocol through socat's stdio", async () => {
    process.env.HOSTGATE_SOCAT = standIn;
    try {
      const client = socketDaemonClient("vsock://3:7420");
      const d = await client.call("describe", {});
      expect(d.ok).toBe(true);
      const doc = await client.call("doctor", {});
      expect(doc.ok && doc.value.checks.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      delete process.env.HOSTGATE_SOCAT;
    }
  });

  it("hostgate doctor with HOSTGATE_SOCKET=vsock://…; a malformed vsock URI is reported", async () => {
    const r = await runHostgate(["doctor", "--no-clients"], { env: { ...env, HOSTGATE_SOCKET: "vsock://3:7420", HOSTGATE_SOCAT: standIn } });
    expect(r.stdout).toMatch(/✓ daemon socket: configured: vsock:\/\/3:7420/);
    // The daemon's own checks came back through the vsock path (this test runs as the daemon's user: "none").
    expect(r.stdout).toMatch(/[✓!] approval separation: \w+/);
    expect(r.stdout).toMatch(/✓ state store: /);
    expect(r.stdout).not.toMatch(/daemon reachable/);
    const bad = await runHostgate(["doctor", "--no-clients"], { env: { ...env, HOSTGATE_SOCKET: "vsock://3" } });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/✗ daemon reachable: .*expected vsock:\/\/CID:PORT/);
  });
});
