/**
 * The SSH executor against real OpenSSH servers in network namespaces: exec, exit codes, signals, timeouts,
 * output caps, stdin, host keys (hashed, unknown, changed, revoked), unreachable hosts, pooling, a dropped
 * connection, cancel, ProxyJump.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, chmodSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshExecutor, type SshExecutorOptions } from "../../src/adapters/exec-ssh/ssh-executor.ts";
import { fingerprint } from "../../src/adapters/exec-ssh/host-keys.ts";
import { netnsPrereqs, startNetnsLab, type NetnsLab } from "../peers/netns-sshd.ts";
import { alive } from "../peers/proc.ts";

const missing = netnsPrereqs();
if (missing && process.env.HOSTGATE_REQUIRE_PEERS === "1") throw new Error(`netns sshd peers required: ${missing}`);
if (missing) process.stderr.write(`SKIPPING exec-ssh integration: ${missing}\n`);

describe.skipIf(missing !== null)("SSH executor against real sshd in network namespaces", () => {
  let lab: NetnsLab;
  let base: SshExecutorOptions;
  const executors: SshExecutor[] = [];
  const make = (over: Partial<SshExecutorOptions> = {}): SshExecutor => {
    const e = new SshExecutor({ ...base, ...over });
    executors.push(e);
    return e;
  };
  const target = (i: number) => ({ host: lab.hosts[i]!.ip, port: 22 });
  const run = (e: SshExecutor, i: number, command: string, extra: { timeout_ms?: number; max_output_bytes?: number; signal?: AbortSignal } = {}) =>
    e.exec({ target: target(i), command, timeout_ms: extra.timeout_ms ?? 10_000, max_output_bytes: extra.max_output_bytes ?? 1 << 20, signal: extra.signal });

  beforeAll(async () => {
    lab = await startNetnsLab(5);
    base = { known_hosts: [lab.knownHosts], host_keys: "strict", default_user: "root", default_identity_files: [lab.clientKey], connect_timeout_ms: 3000 };
  });
  afterAll(async () => {
    for (const e of executors) e.close();
    await lab?.stop();
  });

  it("runs a command and reports stdout, stderr, exit code 0 (hashed and plain known_hosts entries both match: S010)", async () => {
    const e = make();
    const a = await run(e, 0, "hostname; echo err >&2");
    expect(a).toMatchObject({ exit_code: 0, signal: null, timed_out: false, stdout: "lab2\n", stderr: "err\n", truncated: false, error: null });
    const b = await run(e, 1, "hostname");
    expect(b.stdout).toBe("lab3\n");
  });

  it("reports non-zero exit codes as they are", async () => {
    const r = await run(make(), 0, "exit 3");
    expect(r.exit_code).toBe(3);
    expect(r.error).toBeNull();
  });

  it("S014: a command killed by a signal reports exit_code null and the signal name", async () => {
    const r = await run(make(), 0, "kill -KILL $$");
    expect(r.exit_code).toBeNull();
    expect(r.signal).toBe("SIGKILL");
  });

  it("a command waiting on stdin sees EOF at once (stdin closed)", async () => {
    const t0 = Date.now();
    const r = await run(make(), 0, "cat; read x; echo rc=$?");
    expect(r.stdout).toBe("rc=1\n");
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it("the exec request and stdin's EOF leave in one socket write: a warm command costs three writes (open, request + EOF, close), and concurrent identical commands on one connection each see EOF", async () => {
    const e = make();
    await run(e, 0, "true"); // dial and authenticate first
    const proto = Socket.prototype as unknown as { _writeGeneric: (...a: unknown[]) => unknown };
    const orig = proto._writeGeneric;
    let writes = 0;
    proto._writeGeneric = function (this: unknown, ...a: unknown[]) { writes++; return orig.apply(this, a); };
    try {
      const r = await run(e, 0, "cat; echo rc=$?");
      expect(r.stdout).toBe("rc=0\n");
      expect(writes).toBe(3);
    } finally {
      proto._writeGeneric = orig;
    }
    const all = await Promise.all(Array.from({ length: 6 }, () => run(e, 0, "cat; read x; echo rc=$?")));
    expect(all.map((r) => r.stdout)).toEqual(Array.from({ length: 6 }, () => "rc=1\n"));
    expect(e.connections).toBe(1);
  });

  it("S016: sudo -n without a password fails fast instead of waiting for a prompt", async () => {
    const r = await run(make(), 0, "if command -v sudo >/dev/null; then sudo -n -u nobody true; else echo 'sudo: a password is required' >&2; exit 1; fi", { timeout_ms: 5000 });
    expect(r.timed_out).toBe(false);
  });

  it("a timeout kills the remote process and says so", async () => {
    const e = make();
    const r = await run(e, 0, "sleep 30 & echo $! ; wait", { timeout_ms: 500 });
    expect(r.timed_out).toBe(true);
    const sleeper = Number(r.stdout.trim());
    expect(sleeper).toBeGreaterThan(1);
    await expect.poll(() => alive(sleeper), { timeout: 3000 }).toBe(false);
    expect(r.error).toMatch(/timed out/);
    expect(r.duration_ms).toBeLessThan(5000);
    // the connection is still usable afterwards
    expect((await run(e, 0, "echo ok")).stdout).toBe("ok\n");
  });

  it("caps output and marks it truncated", async () => {
    const r = await run(make(), 0, "head -c 100000 /dev/zero | tr '\\0' x; echo; head -c 5000 /dev/zero >&2", { max_output_bytes: 1000 });
    expect(r.stdout.length).toBe(1000);
    expect(r.stderr.length).toBe(1000);
    expect(r.truncated).toBe(true);
    expect(r.exit_code).toBe(0);
  });

  it("S013: 12 concurrent commands on one host are queued under MaxSessions, none fails to open a channel", async () => {
    const e = make({ max_sessions: 8 });
    const rs = await Promise.all(Array.from({ length: 12 }, (_, k) => run(e, 2, `sleep 0.2; echo ${k}`)));
    expect(rs.map((r) => r.stdout.trim())).toEqual(Array.from({ length: 12 }, (_, k) => String(k)));
    expect(e.connections).toBe(1);
  });

  it("S013: a channel refused by the server is a transport error, not the command failing", async () => {
    const e = make({ max_sessions: 20 });
    const rs = await Promise.allSettled(Array.from({ length: 14 }, () => run(e, 2, "sleep 0.5")));
    const refused = rs.filter((r) => r.status === "rejected");
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.reason).toMatchObject({ code: "backend_error" });
    for (const r of rs) if (r.status === "fulfilled") expect(r.value.exit_code).toBe(0);
  });

  it("pools one connection per host and closes it when idle", async () => {
    const e = make({ idle_ms: 200 });
    await run(e, 3, "true");
    await run(e, 3, "true");
    expect(e.connections).toBe(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(e.connections).toBe(0);
  });

  it("unknown host key is refused with its fingerprint and what to do; nothing runs", async () => {
    const kh = join(lab.dir, "kh-empty");
    writeFileSync(kh, "");
    const e = make({ known_hosts: [kh] });
    const fp = fingerprint(Buffer.from(lab.hosts[0]!.hostKeyPub.split(" ")[1]!, "base64"));
    await expect(run(e, 0, "touch /tmp/should-not-exist")).rejects.toMatchObject({ code: "host_key_unknown", details: { fingerprint: fp } });
    await expect(run(e, 0, "true")).rejects.toThrow(expect.objectContaining({ hint: expect.stringContaining("ssh-keyscan") as unknown }));
  });

  it("S009: the host key is checked before any authentication is offered", async () => {
    const log = join(lab.dir, lab.hosts[0]!.name, "sshd.log");
    const accepted = (): number => (readFileSync(log, "utf8").match(/Accepted publickey/g) ?? []).length;
    const before = accepted();
    const kh = join(lab.dir, "kh-empty-s009");
    writeFileSync(kh, "");
    await expect(run(make({ known_hosts: [kh] }), 0, "true")).rejects.toMatchObject({ code: "host_key_unknown" });
    expect(accepted()).toBe(before);
    expect(readFileSync(log, "utf8")).not.toMatch(/Failed publickey|Failed password/);
  });

  it("changed host key is refused as a possible interception", async () => {
    const kh = join(lab.dir, "kh-wrong");
    // host 0's name with host 1's key
    writeFileSync(kh, `${lab.hosts[0]!.ip} ${lab.hosts[1]!.hostKeyPub}\n`);
    await expect(run(make({ known_hosts: [kh] }), 0, "true")).rejects.toMatchObject({ code: "host_key_mismatch" });
  });

  it("S010: a @revoked key is refused even when another line trusts it", async () => {
    const kh = join(lab.dir, "kh-revoked");
    writeFileSync(kh, `${lab.hosts[0]!.ip} ${lab.hosts[0]!.hostKeyPub}\n@revoked * ${lab.hosts[0]!.hostKeyPub}\n`);
    await expect(run(make({ known_hosts: [kh] }), 0, "true")).rejects.toMatchObject({ code: "host_key_mismatch", details: { revoked: true } });
  });

  it("S011: an unreadable known_hosts fails closed", async () => {
    const kh = join(lab.dir, "kh-unreadable");
    writeFileSync(kh, readFileSync(lab.knownHosts));
    chmodSync(kh, 0o000);
    // root reads anything: make it a directory instead, which cannot be read as a file
    const dirKh = join(lab.dir, "kh-dir");
    execFileSync("mkdir", ["-p", dirKh]);
    await expect(run(make({ known_hosts: [dirKh] }), 0, "true")).rejects.toMatchObject({ code: "permission_denied" });
  });

  it("trust on first use records the key only when configured", async () => {
    const kh = join(lab.dir, "kh-tofu");
    writeFileSync(kh, "");
    const seen: string[] = [];
    const e = make({ known_hosts: [kh], host_keys: "tofu", onTrustedFirstUse: (n) => seen.push(n) });
    expect((await run(e, 4, "echo hi")).stdout).toBe("hi\n");
    expect(seen).toEqual([lab.hosts[4]!.ip]);
    expect(readFileSync(kh, "utf8")).toContain(lab.hosts[4]!.hostKeyPub.split(" ")[1]);
  });

  it("an unreachable host is reported while the others succeed", async () => {
    const e = make({ connect_timeout_ms: 1500 });
    lab.setLink(lab.hosts[3]!, false);
    try {
      const rs = await Promise.allSettled([run(e, 0, "echo a"), run(e, 3, "echo b"), run(e, 1, "echo c")]);
      expect(rs[0]).toMatchObject({ status: "fulfilled", value: { stdout: "a\n" } });
      expect(rs[1]).toMatchObject({ status: "rejected", reason: { code: "unreachable" } });
      expect(rs[2]).toMatchObject({ status: "fulfilled", value: { stdout: "c\n" } });
    } finally {
      lab.setLink(lab.hosts[3]!, true);
    }
  });

  it("a connection dropped mid-command reports the outcome as unknown, and the next command redials", async () => {
    const e = make();
    expect((await run(e, 1, "true")).exit_code).toBe(0);
    const p = run(e, 1, "sleep 20");
    await new Promise((r) => setTimeout(r, 300));
    lab.dropSessions(lab.hosts[1]!);
    const r = await p;
    expect(r.exit_code).toBeNull();
    expect(r.error).toMatch(/connection lost|exit status unknown/);
    expect((await run(e, 1, "echo again")).stdout).toBe("again\n");
  });

  it("cancel via AbortSignal kills the remote command", async () => {
    const e = make();
    const ac = new AbortController();
    const p = run(e, 0, "echo $$ > /tmp/hg-cancel-pid; exec sleep 30", { signal: ac.signal, timeout_ms: 0 });
    await new Promise((r) => setTimeout(r, 400));
    const remotePid = Number((await run(e, 0, "cat /tmp/hg-cancel-pid")).stdout.trim());
    ac.abort();
    const r = await p;
    expect(r.error).toMatch(/cancelled/);
    expect(r.timed_out).toBe(false);
    // the remote process is gone (namespaces share the pid namespace with us)
    await expect.poll(() => alive(remotePid), { timeout: 3000 }).toBe(false);
  });

  it("S012: ProxyJump verifies the bastion and the target each against their own names", async () => {
    const e = make();
    const r = await e.exec({ target: target(2), jumps: [target(0)], command: "hostname", timeout_ms: 5000, max_output_bytes: 1000 });
    expect(r.stdout).toBe("lab4\n");
    const kh = join(lab.dir, "kh-bastion-only");
    writeFileSync(kh, `${lab.hosts[0]!.ip} ${lab.hosts[0]!.hostKeyPub}\n`);
    await expect(make({ known_hosts: [kh] }).exec({ target: target(2), jumps: [target(0)], command: "true", timeout_ms: 5000, max_output_bytes: 10 }))
      .rejects.toMatchObject({ code: "host_key_unknown", details: { name: lab.hosts[2]!.ip } });
  });

  it("S001/S004/S005: targets are validated before dialing", async () => {
    const e = make();
    for (const host of ["-oProxyCommand=id", "db$(id).example.com", "touch${IFS}/tmp/p"]) {
      await expect(e.exec({ target: { host, port: 22 }, command: "true", timeout_ms: 1000, max_output_bytes: 10 })).rejects.toMatchObject({ code: "invalid_target" });
    }
    expect(e.connections).toBe(0);
  });
});
