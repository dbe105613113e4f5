/**
 * The read ports over SSH (src/adapters/host-ssh.ts, ssh-context.ts) against a real sshd on loopback. The remote
 * host is this same machine, so every read-only catalogue action that applies runs once with the local
 * LinuxHostProbe context and once with the SSH context, and the answers are compared.
 *
 * Normalised before comparing (values that change between two reads, whatever the transport), and only these:
 * - counters and gauges that move on their own: memory figures except totals, load and pressure, disk usage
 *   and inode counts, interface packet/byte counters, uptime, per-process CPU time, %CPU, RSS/VMS, threads, state;
 * - list_processes: the rows of processes that exist in only one of the two answers (the probe's own sshd
 *   session and listener, its helper shells, test workers that came and went); the common rows must be most
 *   of them; and
 *   the name of kernel workers (`kworker/…`: the kernel renames them after the workqueue they last ran);
 * - get_disk_usage: the /root tmpfs the test's sshd mounts in its own mount namespace (remote /proc/self is
 *   that namespace; TESTING-PEERS.md: it keeps root's shell init from running), and the row order (that
 *   namespace lists its copied mounts in tree order).
 * Not compared, because they do not apply to an SSH host yet: the systemd actions (no remote D-Bus backend is
 * composed here: they answer `unavailable`, tested below).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool, type SshPoolOptions } from "../../src/adapters/exec-ssh/pool.ts";
import { SshHostProbe } from "../../src/adapters/host-ssh.ts";
import { sshActionContext, type SshHostContext } from "../../src/adapters/ssh-context.ts";
import { sshSession } from "../../src/adapters/exec-ssh/session.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { findAction } from "../../src/core/catalogue/index.ts";
import { peerMissing } from "../helpers/peers.ts";
import { errorCode, realContext } from "../helpers/real-context.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";

const skip = peerMissing("host probe over SSH", sshdPrereqs());

function poolFor(peer: SshdPeer, over: Partial<SshPoolOptions> = {}): SshPool {
  const pub = readFileSync(join(peer.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
  writeFileSync(join(peer.dir, "known_hosts"), `[127.0.0.1]:${peer.port} ${pub}\n`);
  return new SshPool({ known_hosts: [join(peer.dir, "known_hosts")], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 3000, ...over });
}

const VOLATILE = new Set([
  "free_bytes", "available_bytes", "used_bytes", "buffers_bytes", "cached_bytes", "shared_bytes", "swap_free_bytes", "swap_used_bytes",
  "load1", "load5", "load15", "runnable", "scheduling_entities", "pressure",
  "avail_bytes", "use_percent", "inodes_used", "inodes_free", "inodes_use_percent",
  "rx_bytes", "tx_bytes", "rx_packets", "tx_packets", "rx_errors", "tx_errors",
  "uptime_seconds", "cpu_seconds", "cpu_percent", "rss_bytes", "vms_bytes", "threads", "state", "open_fds", "children",
]);

/** Replaces the values of VOLATILE keys by their type, everywhere in `v`. */
function normalise(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalise);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, VOLATILE.has(k) ? typeof x : normalise(x)]));
  return v;
}

async function answer(ctx: ActionContext, name: string, params: Record<string, unknown> = {}): Promise<unknown> {
  const action = findAction(name, ctx.family);
  if (!action || action.access !== "read_only") throw new Error(`${name} is not a read-only action for ${ctx.family}`);
  try {
    return await action.run(action.params.parse(params), ctx);
  } catch (e) {
    return { error: (e as { code?: string }).code ?? String(e) };
  }
}

describe.skipIf(skip)("read-only actions: local probe vs SSH probe on the same machine", () => {
  let peer: SshdPeer;
  let pool: SshPool;
  let remote: SshHostContext;
  let local: ActionContext;
  let logDir: string;

  beforeAll(async () => {
    peer = await startSshd();
    pool = poolFor(peer);
    remote = await sshActionContext({ pool, route: { target: { host: "127.0.0.1", port: peer.port } }, name: "loopback", logs_readable: { kind: "all" } });
    local = await realContext();
    logDir = mkdtempSync("/var/log/hg-ssh-test-");
  });
  afterAll(async () => {
    pool?.close();
    await peer?.stop();
    if (logDir) rmSync(logDir, { recursive: true, force: true });
  });

  it("the context names the remote's family and hostname from its own files", async () => {
    const local2 = await realContext();
    expect(remote.family).toBe(local2.family);
    expect(remote.hostname).toBe(readFileSync("/proc/sys/kernel/hostname", "utf8").trim());
    expect(remote.ctx.self_pid).toBe(-1);
  });

  const same = ["GetSystemInfo", "GetMemoryUsage", "GetLoad", "GetNetworkInterfaces", "ListListeningPorts"];
  for (const name of same) {
    it(`${name} answers the same over SSH`, async () => {
      const [l, r] = [await answer(local, name), await answer(remote.ctx, name)];
      expect(r).not.toHaveProperty("error");
      expect(normalise(r)).toEqual(normalise(l));
    });
  }

  it("GetDiskUsage answers the same over SSH (statvfs@openssh.com), but for the sshd's own /root tmpfs", async () => {
    const [l, r] = (await Promise.all([answer(local, "GetDiskUsage"), answer(remote.ctx, "GetDiskUsage")])) as { filesystems: { mount_point: string }[] }[];
    // Sorted: a new mount namespace lists its copied mounts in tree order, not in the order they were mounted.
    const drop = (x: { filesystems: { mount_point: string }[] }) => x.filesystems.filter((f) => f.mount_point !== "/root").sort((a, b) => a.mount_point.localeCompare(b.mount_point));
    expect(drop(r!).length).toBeGreaterThan(0);
    expect(normalise(drop(r!))).toEqual(normalise(drop(l!)));
  });

  it("ListProcesses answers the same rows over SSH (processes present in both answers)", async () => {
    const params = { limit: 500, sort: "pid" };
    const [l, r] = (await Promise.all([answer(local, "ListProcesses", params), answer(remote.ctx, "ListProcesses", params)])) as { processes: { pid: number }[] }[];
    const rp = new Map(r!.processes.map((p) => [p.pid, p]));
    // The test's sshd listener is left out too: its title counts the connections starting ("[listener] 0 of …").
    const common = l!.processes.filter((p) => rp.has(p.pid) && p.pid !== peer.pid);
    const kworker = (p: unknown) => { const x = p as { name: string }; return { ...x, name: x.name.startsWith("kworker/") ? "kworker" : x.name }; };
    expect(common.length).toBeGreaterThan(l!.processes.length * 0.8);
    expect(normalise(common.map((p) => kworker(rp.get(p.pid))))).toEqual(normalise(common.map(kworker)));
  });

  it("GetProcess of this test process answers the same over SSH, also right after a process listing", async () => {
    await answer(remote.ctx, "ListProcesses", {}); // the dump it leaves must not answer this read twice
    const [l, r] = [await answer(local, "GetProcess", { pid: process.pid }), await answer(remote.ctx, "GetProcess", { pid: process.pid })];
    expect(r).toMatchObject({ pid: process.pid });
    expect((r as { argv: string[] }).argv.length).toBeGreaterThan(0);
    expect(normalise(r)).toEqual(normalise(l));
  });

  it("ReadLogFile answers the same over SSH (the remote tail helper), and refuses a symlink and a hard link alike", async () => {
    const log = join(logDir, "app.log");
    writeFileSync(log, Array.from({ length: 3000 }, (_, i) => `line ${i} ${"x".repeat(i % 97)} é\n`).join(""));
    for (const lines of [1, 20, 2000]) {
      const [l, r] = [await answer(local, "ReadLogFile", { path: log, lines }), await answer(remote.ctx, "ReadLogFile", { path: log, lines })];
      expect(r).toMatchObject({ path: log });
      expect(r).toEqual(l);
    }
    const outside = mkdtempSync("/tmp/hg-outside-");
    try {
      writeFileSync(join(outside, "secret"), "s3cret\n");
      const { symlinkSync, linkSync } = await import("node:fs");
      symlinkSync(join(outside, "secret"), join(logDir, "link.log"));
      linkSync(join(outside, "secret"), join(logDir, "hard.log"));
      for (const p of ["link.log", "hard.log"]) {
        const path = join(logDir, p);
        const r = await answer(remote.ctx, "ReadLogFile", { path });
        expect(r).toEqual(await answer(local, "ReadLogFile", { path }));
        expect(JSON.stringify(r)).not.toContain("s3cret");
      }
      // the probe itself, below the action's own realpath check
      await expect(remote.ctx.host.readTailConfined(join(logDir, "hard.log"), logDir, { maxBytes: 100, maxLines: 1 })).rejects.toMatchObject({ code: "forbidden_path", message: expect.stringContaining("hard links") as unknown });
      await expect(remote.ctx.host.readTailConfined(join(logDir, "link.log"), logDir, { maxBytes: 100, maxLines: 1 })).rejects.toMatchObject({ code: "forbidden_path", message: expect.stringContaining("symlink") as unknown });
      mkdirSync(join(logDir, "sub"));
      await expect(remote.ctx.host.readTailConfined(join(logDir, "sub"), logDir, { maxBytes: 100, maxLines: 1 })).rejects.toMatchObject({ code: "forbidden_path" });
      await expect(remote.ctx.host.readTailConfined(join(logDir, "app.log"), join(logDir, "sub"), { maxBytes: 100, maxLines: 1 })).rejects.toMatchObject({ code: "forbidden_path", message: expect.stringContaining("outside") as unknown });
      await expect(remote.ctx.host.readTailConfined(join(logDir, "none.log"), logDir, { maxBytes: 100, maxLines: 1 })).rejects.toMatchObject({ code: "not_found" });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("GetPackageInfo, SearchPackages and ReadJournal (remote commands) answer the same over SSH", async () => {
    for (const [name, params] of [["GetPackageInfo", { name: "bash" }], ["SearchPackages", { query: "openssh", names_only: true, limit: 5 }], ["ReadJournal", { limit: 5 }]] as const) {
      const [l, r] = [await answer(local, name, params), await answer(remote.ctx, name, params)];
      expect(normalise(r), name).toEqual(normalise(l));
    }
  });

  it("systemd actions answer unavailable on the SSH context until a remote systemd backend is composed", async () => {
    const r = await answer(remote.ctx, "ListUnits", {});
    expect(r).toEqual({ error: "unavailable" });
    await expect(remote.ctx.mutator.run(["true"], {})).rejects.toMatchObject({ code: "unavailable", message: expect.stringContaining("loopback") as unknown });
  });

  it("probe errors map as local: missing file not_found, a FIFO refused without blocking the SFTP channel", async () => {
    const h = remote.ctx.host;
    expect(await errorCode(() => h.readText(join(logDir, "missing")))).toBe("not_found");
    expect(await errorCode(() => h.readDir(join(logDir, "missing")))).toBe("not_found");
    expect(await errorCode(() => h.stat(join(logDir, "missing")))).toBe("not_found");
    expect(await errorCode(() => h.statFs(join(logDir, "missing")))).toBe("not_found");
    execFileSync("mkfifo", [join(logDir, "fifo")]);
    expect(await errorCode(() => h.readText(join(logDir, "fifo")))).toBe("unavailable");
    expect(await errorCode(() => h.readText(join(logDir, "fifo"), { maxBytes: 10 }))).toBe("unavailable");
    expect(await h.readText("/proc/sys/kernel/ostype")).toBe("Linux\n");
    expect(await h.stat(logDir)).toMatchObject({ is_directory: true, mode: 0o700 });
    expect(await h.which("sh")).toMatch(/^\/.*\/sh$/);
    expect(await h.which("echo")).toBe(await local.host.which("echo"));
    expect(await h.which("no-such-program-hg")).toBeNull();
    expect(await h.which("a b'$(touch /tmp/hg-which-pwned)")).toBeNull();
    expect(await errorCode(() => readFileSync("/tmp/hg-which-pwned") as unknown as Promise<unknown>)).not.toBe(null);
  });

  it("run: exit codes, a timeout (the remote process killed), output caps, env and bad input", async () => {
    const h = remote.ctx.host;
    expect(await h.run(["sh", "-c", "echo out; echo err >&2; exit 3"])).toMatchObject({ exit_code: 3, stdout: "out\n", stderr: "err\n", timed_out: false, truncated: false, argv: ["sh", "-c", "echo out; echo err >&2; exit 3"] });
    const t = await h.run(["sleep", "30"], { timeoutMs: 300 });
    expect(t).toMatchObject({ timed_out: true, signal: "SIGKILL" });
    expect(t.duration_ms).toBeLessThan(5000);
    expect(await h.run(["head", "-c", "5000", "/dev/zero"], { maxOutputBytes: 100 })).toMatchObject({ truncated: true });
    expect((await h.run(["sh", "-c", 'echo "$HG_X|$LC_ALL"'], { env: { HG_X: "a'b $(id)" } })).stdout).toBe("a'b $(id)|C.UTF-8\n");
    expect((await h.run(["no-such-program-hg"])).exit_code).toBe(127);
    expect(await errorCode(() => h.run([]))).toBe("invalid_params");
    expect(await errorCode(() => h.run(["-x"]))).toBe("invalid_params");
    expect(await errorCode(() => h.run(["echo", "a\0b"]))).toBe("invalid_params");
    expect(await errorCode(() => h.run(["echo"], { env: { "A;B": "1" } }))).toBe("invalid_params");
  });
});

describe.skipIf(skip)("SSH probe: a non-root login and a host that disappears", () => {
  let peer: SshdPeer;
  let dir: string;
  beforeAll(async () => {
    peer = await startSshd({ user: "hgprobe" });
    dir = mkdtempSync("/tmp/hg-probe-perm-");
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "root-only"), "secret\n", { mode: 0o600 });
    writeFileSync(join(dir, "open"), "hello\n", { mode: 0o644 });
    mkdirSync(join(dir, "closed"), { mode: 0o700 });
  });
  afterAll(async () => {
    await peer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a file the login cannot read is permission_denied (SFTP, the tail helper and readDir), a readable one is read", async () => {
    const pool = poolFor(peer, { default_user: "hgprobe" });
    try {
      const h = new SshHostProbe(sshSession(pool, { target: { host: "127.0.0.1", port: peer.port } }), "loop-user");
      expect(await h.readText(join(dir, "open"))).toBe("hello\n");
      await expect(h.readText(join(dir, "root-only"))).rejects.toMatchObject({ code: "permission_denied", message: expect.stringContaining("loop-user") as unknown });
      await expect(h.readText(join(dir, "root-only"), { maxBytes: 10 })).rejects.toMatchObject({ code: "permission_denied" });
      await expect(h.readDir(join(dir, "closed"))).rejects.toMatchObject({ code: "permission_denied" });
      await expect(h.readTailConfined(join(dir, "root-only"), dir, { maxBytes: 100, maxLines: 5 })).rejects.toMatchObject({ code: "permission_denied" });
      expect((await h.run(["id", "-u"])).stdout).toBe("4242\n");
    } finally {
      pool.close();
    }
  });

  it("a host that disappears mid-call answers unavailable naming the host, without hanging; the next call is unreachable", async () => {
    const extra = await startSshd();
    const pool = poolFor(extra);
    try {
      const h = new SshHostProbe(sshSession(pool, { target: { host: "127.0.0.1", port: extra.port } }), "vanishing");
      const fifo = join(dir, "blocking-fifo");
      execFileSync("mkfifo", [fifo]);
      // An SFTP open of a FIFO blocks the server (readText refuses FIFOs, so open one through the raw session).
      const sftp = await sshSession(pool, { target: { host: "127.0.0.1", port: extra.port } }).sftp();
      const blocked = new Promise<Error | undefined>((res) => { sftp.open(fifo, "r", (e) => { res(e ?? undefined); }); });
      const pending = h.readText("/proc/meminfo");
      const running = h.run(["sleep", "20"]);
      await new Promise((r) => setTimeout(r, 200));
      const t0 = Date.now();
      await extra.stop();
      await expect(pending).rejects.toMatchObject({ code: "unavailable", message: expect.stringContaining("vanishing") as unknown, details: { host: "vanishing" } });
      await expect(running).rejects.toMatchObject({ code: "unavailable", message: expect.stringContaining("vanishing") as unknown });
      expect(await blocked).toBeInstanceOf(Error);
      expect(Date.now() - t0).toBeLessThan(5000);
      await expect(h.readText("/proc/meminfo")).rejects.toMatchObject({ code: "unreachable" });
    } finally {
      pool.close();
    }
  });
});
