/**
 * Issue 23: `hostgate console passkeys` and `hostgate console revoke <id>` against a real `hostgate daemon` over
 * its admin socket. The daemon's state database is prepared before it starts with one passkey row (the passkey
 * store of the daemon itself, adapters/passkey-sqlite.ts), so the test needs no browser; its config names a
 * mock systemd backend and its own state and runtime directories.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlitePasskeyStore } from "../../src/adapters/passkey-sqlite.ts";
import { renderPasskeys } from "../../src/cli/console-passkeys.ts";
import { rawIpc, startDaemon, type DaemonProcess } from "../helpers/daemon.ts";
import { runHostgate } from "../helpers/hostgate.ts";

const dir = mkdtempSync(join(tmpdir(), `hg-console-passkeys-${process.pid}-`));
let daemon: DaemonProcess;

beforeAll(async () => {
  mkdirSync(join(dir, "state"), { recursive: true, mode: 0o700 });
  const store = new SqlitePasskeyStore(join(dir, "state", "state.db"));
  store.add({ credential_id: "cred-AAAA_bbbb", name: "alice\u202Elaptop", public_key: "pQECAyYgASFYIA", counter: 0, transports: ["internal"], created_at: Date.parse("2026-12-01T10:00:00Z") });
  store.close();
  daemon = await startDaemon("backend:\n  type: mock\nconsole:\n  port: 0\n", { dir });
}, 30_000);
afterAll(async () => {
  await daemon.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("hostgate console passkeys / revoke (issue 23)", () => {
  it("T23-cli-passkeys: lists the enrolled passkeys with names made visible, then revokes one; a second revoke and an unknown id say what to do", async () => {
    const list = await runHostgate(["console", "passkeys", "--socket", daemon.adminSocket, "-c", daemon.configPath], { env: daemon.env });
    expect(list.code).toBe(0);
    // Planted in state.db without a `passkey.enrolled` entry: the BY column says the chain never saw it enrolled.
    expect(list.stdout).toMatch(/^CREDENTIAL\s+NAME\s+ENROLLED\s+BY\s+LAST USED\ncred-AAAA_bbbb\s+alice<U\+202E>laptop\s+2026-12-01T10:00:00.000Z\s+NOT IN THE AUDIT CHAIN\s+never\n/);
    const json = await runHostgate(["console", "passkeys", "--json", "--socket", daemon.adminSocket, "-c", daemon.configPath], { env: daemon.env });
    expect(JSON.parse(json.stdout)).toEqual({ passkeys: [{ credential_id: "cred-AAAA_bbbb", name: "alice\u202Elaptop", created_at: "2026-12-01T10:00:00.000Z", last_used_at: null, enrolled_by: null, enrolled_seq: null, vouched_by: null }] });
    // `console enroll` says what exists and what adding one needs; doctor names it too.
    const enroll = await runHostgate(["console", "enroll", "--no-open", "--socket", daemon.adminSocket, "-c", daemon.configPath], { env: { ...daemon.env, DISPLAY: "" } });
    expect(enroll.code, enroll.stderr).toBe(0);
    expect(enroll.stdout).toContain("1 passkey is already enrolled:\n  alice<U+202E>laptop  (cred-AAAA_bbbb; enrolled 2026-12-01T10:00:00.000Z by NOT IN THE AUDIT CHAIN)\n");
    expect(enroll.stdout).toContain("Adding another needs an assertion from that passkey");
    expect(enroll.stdout).toContain("hostgate console revoke <credential>");
    expect(enroll.stdout).toMatch(/enroll#hgl_/);
    const doctor = await rawIpc(daemon.agentSocket, "doctor", {});
    expect(JSON.stringify(doctor)).toMatch(/"name":"console: passkeys","status":"warn","detail":"alice<U\+202E>laptop \(cred-AAAA_bbbb\) has no enrollment entry in the audit chain/);
    const revoke = await runHostgate(["console", "revoke", "cred-AAAA_bbbb", "--socket", daemon.adminSocket, "-c", daemon.configPath], { env: daemon.env });
    expect(revoke).toMatchObject({ code: 0, stdout: "Revoked passkey cred-AAAA_bbbb; it can no longer approve.\n" });
    const after = await runHostgate(["console", "passkeys", "--socket", daemon.adminSocket, "-c", daemon.configPath], { env: daemon.env });
    expect(after.stdout).toBe("No passkey is enrolled. Enroll one with: hostgate console enroll\n");
    const again = await runHostgate(["console", "revoke", "cred-AAAA_bbbb", "--socket", daemon.adminSocket, "-c", daemon.configPath], { env: daemon.env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already revoked\.\nList the active ones with: hostgate console passkeys/);
    const unknown = await runHostgate(["console", "revoke", "nope", "--socket", daemon.adminSocket, "-c", daemon.configPath], { env: daemon.env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No passkey nope was ever enrolled/);
    const bad = await runHostgate(["console", "revoke", "not base64!", "--socket", daemon.adminSocket, "-c", daemon.configPath], { env: daemon.env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/credential id is base64url/);
  });

  it("T23-cli-passkeys-agent-socket: the passkey methods are not served on the agent socket", async () => {
    const r = await runHostgate(["console", "passkeys", "--socket", daemon.agentSocket, "-c", daemon.configPath], { env: daemon.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/admin/);
  });

  it("T23-cli-global-socket: every console subcommand reaches the daemon --socket names, wherever the option stands, not the default", async () => {
    // The default admin socket (HOSTGATE_ADMIN_SOCKET) names a path where no daemon runs: only --socket can reach the scratch daemon.
    const env = { ...daemon.env, HOSTGATE_ADMIN_SOCKET: join(dir, "no-daemon-here.sock") };
    const cfg = ["-c", daemon.configPath];
    const link = /one-time link \(valid until [^)]+\): *\n\n {2}http:\/\/localhost:\d+\/(login|enroll)#hgl_[A-Za-z0-9_-]{43}\n/;
    for (const args of [
      ["console", "--socket", daemon.adminSocket, "--no-open", ...cfg],
      ["console", "enroll", "--socket", daemon.adminSocket, "--no-open", ...cfg],
      ["console", "--socket", daemon.adminSocket, "enroll", "--no-open", ...cfg],
    ]) {
      const r = await runHostgate(args, { env: { ...env, DISPLAY: "" } });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(link);
      expect(link.exec(r.stdout)![1]).toBe(args.includes("enroll") ? "enroll" : "login");
    }
    const listed = await runHostgate(["console", "--socket", daemon.adminSocket, "passkeys", "--json", ...cfg], { env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toHaveProperty("passkeys");
    // Without --socket each of them asks the default, where nothing answers: the flag above was what reached the daemon.
    for (const args of [["console", "--no-open"], ["console", "enroll", "--no-open"], ["console", "passkeys"]]) {
      const r = await runHostgate([...args, ...cfg], { env });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
    }
  });

  it("renders an empty list with the way to enroll", () => {
    expect(renderPasskeys({ passkeys: [] })).toMatch(/hostgate console enroll/);
  });
});
