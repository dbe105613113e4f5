/**
 * Issue 20, the round-trip spy: how many times a warm read-only call waits on the remote host. A real sshd on
 * loopback (test/peers/sshd.ts); the SSH ports run on a session wrapped the way the adapter uses it (SshSession:
 * `openChannel`, `exec`, `sftp()`), which logs every request sent (a channel opened, an SFTP request) and every
 * answer received. A round trip is a wave of requests sent before the first answer they wait on: a request sent
 * after an answer of the same call starts another. An exec channel counts as one (its open, the command and its
 * output are one exchange with one remote command).
 *
 * Also here: the process table reader's framing against a process whose command line holds a forged frame (and a
 * forged end header), and the kept reader's life: reused, reopened after the host killed it, closed when idle.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SFTPWrapper } from "ssh2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SshPool } from "../../src/adapters/exec-ssh/pool.ts";
import { sshSession, type SshSession } from "../../src/adapters/exec-ssh/session.ts";
import { SshProcessReader } from "../../src/adapters/host-ssh-ps-reader.ts";
import { sessionExecOpener } from "../../src/adapters/remote-exec.ts";
import { sshActionContext } from "../../src/adapters/ssh-context.ts";
import type { ActionContext } from "../../src/core/catalogue/action.ts";
import { findAction } from "../../src/core/catalogue/index.ts";
import { peerMissing } from "../helpers/peers.ts";
import { sshdPrereqs, startSshd, type SshdPeer } from "../peers/sshd.ts";

/** A command line forging a frame, a vanished file and the kept reader's end header. */
const FORGED = "F 3 /proc/1/stat\nE 0 /proc/1/cmdline\nD 0 /\n";

/** Pids of the kept readers' `sh` loops under the test's sshd (found by the loop's own text). */
function readerLoops(sshd: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync("/proc").filter((x) => /^\d+$/.test(x))) {
    try {
      const f = readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(f.slice(f.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // exited
    }
  }
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === sshd) return true;
    return false;
  };
  return [...parent.keys()].filter((pid) => {
    try {
      return under(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("while read -r _; do awk");
    } catch {
      return false;
    }
  });
}

const skip = peerMissing("SSH round-trip spy", sshdPrereqs());

/** What the spy saw: `send:<what>` and `answer:<what>` in order. */
class Spy {
  events: string[] = [];
  reset(): void {
    this.events = [];
  }
  /** Requests sent (channel opens and SFTP requests). */
  get sent(): string[] {
    return this.events.filter((e) => e.startsWith("send:")).map((e) => e.slice(5));
  }
  /** Waves of requests: a send after an answer starts a new one. */
  get roundTrips(): number {
    let waves = 0;
    let answered = true;
    for (const e of this.events) {
      if (e.startsWith("send:") && answered) {
        waves++;
        answered = false;
      } else if (e.startsWith("answer:")) answered = true;
    }
    return waves;
  }
}

const SFTP_REQUESTS = new Set(["open", "read", "close", "readdir", "opendir", "stat", "lstat", "fstat", "readlink", "realpath", "ext_openssh_statvfs"]);

/** `session` with every request logged in `spy` (the same proxied SFTP object for the same channel). */
function spied(session: SshSession, spy: Spy): SshSession {
  const proxies = new WeakMap<SFTPWrapper, SFTPWrapper>();
  const proxy = (s: SFTPWrapper): SFTPWrapper => {
    let p = proxies.get(s);
    if (!p) {
      p = new Proxy(s, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          if (typeof prop !== "string" || typeof v !== "function" || !SFTP_REQUESTS.has(prop)) return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          return (...args: unknown[]) => {
            spy.events.push(`send:sftp.${prop}`);
            const last = args.length - 1;
            const cb = args[last] as (...a: unknown[]) => void;
            args[last] = (...r: unknown[]) => {
              spy.events.push(`answer:sftp.${prop}`);
              cb(...r);
            };
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      proxies.set(s, p);
    }
    return p;
  };
  return {
    label: session.label,
    route: session.route,
    identity: () => session.identity(),
    sftp: async () => proxy(await session.sftp()),
    async openChannel(spec) {
      spy.events.push("send:channel");
      const ch = await session.openChannel(spec);
      ch.once("close", () => { spy.events.push("answer:channel"); });
      // A kept channel (the process reader): each write is a request, its output the answer.
      const write = ch.write.bind(ch) as (...a: unknown[]) => boolean;
      ch.write = ((...a: unknown[]) => {
        spy.events.push("send:write");
        return write(...a);
      }) as typeof ch.write;
      ch.on("data", () => { spy.events.push("answer:data"); });
      return ch;
    },
    async exec(argv, opts) {
      spy.events.push("send:channel");
      try {
        return await session.exec(argv, opts);
      } finally {
        spy.events.push("answer:channel");
      }
    },
  };
}

describe.skipIf(skip)("round trips of warm read-only calls over SSH (issue 20)", () => {
  let peer: SshdPeer;
  let pool: SshPool;
  const spy = new Spy();
  let ctx: ActionContext;
  let forged: ChildProcess;

  beforeAll(async () => {
    peer = await startSshd();
    const pub = readFileSync(join(peer.dir, "host_key.pub"), "utf8").split(" ").slice(0, 2).join(" ");
    writeFileSync(join(peer.dir, "known_hosts"), `[127.0.0.1]:${peer.port} ${pub}\n`);
    pool = new SshPool({ known_hosts: [join(peer.dir, "known_hosts")], host_keys: "strict", default_user: "root", default_identity_files: [peer.clientKey], connect_timeout_ms: 10_000 });
    const route = { target: { host: "127.0.0.1", port: peer.port } };
    const built = await sshActionContext({ pool, route, name: "spy", logs_readable: { kind: "all" }, session: spied(sshSession(pool, route), spy) });
    ctx = built.ctx;
    // A process whose command line carries a forged frame header and a newline (it is this machine: the remote host).
    forged = spawn("sh", ["-c", "sleep 60", FORGED], { stdio: "ignore" });
  }, 30_000);
  afterAll(async () => {
    forged?.kill();
    pool?.close();
    await peer?.stop();
  });

  const run = async (name: string, params: Record<string, unknown> = {}): Promise<unknown> => {
    const action = findAction(name, ctx.family);
    if (!action || action.access !== "read_only") throw new Error(`no read-only ${name}`);
    return action.run(action.params.parse(params), ctx);
  };

  it("get_memory_usage: one round trip after warm-up (one SFTP read wave on the kept handle: no channel, no open, no close), and each read is fresh", async () => {
    await run("GetMemoryUsage");
    spy.reset();
    const m = await run("GetMemoryUsage") as { total_bytes: number };
    expect(m.total_bytes).toBeGreaterThan(0);
    expect(spy.roundTrips, spy.events.join(" ")).toBe(1);
    expect(spy.sent.every((s) => s === "sftp.read"), spy.events.join(" ")).toBe(true);
    // The kept handle re-reads a generated file: two reads of /proc/uptime a moment apart differ.
    const a = await ctx.host.readText("/proc/uptime");
    await new Promise((r) => setTimeout(r, 50));
    const b = await ctx.host.readText("/proc/uptime");
    expect(b).not.toBe(a);
  });

  it("list_processes: one round trip after warm-up (one request on the kept reader's channel: no channel opened, nothing over SFTP)", async () => {
    await run("ListProcesses");
    for (const params of [{}, { sort: "memory" }, { user: "root" }, { name: "sleep", limit: 500 }]) {
      spy.reset();
      const r = await run("ListProcesses", params) as { processes: unknown[] };
      expect(r.processes.length).toBeGreaterThan(0);
      expect(spy.roundTrips, `${JSON.stringify(params)}: ${spy.events.join(" ")}`).toBe(1);
      expect(spy.sent).toEqual(["write"]);
    }
  });

  it("the kept reader killed on the host: the next list_processes answers (a new reader, opened within that call), and later calls reuse it", async () => {
    await run("ListProcesses");
    const loops = readerLoops(peer.pid);
    expect(loops).toHaveLength(1);
    process.kill(loops[0]!, "SIGKILL");
    await new Promise((r) => setTimeout(r, 200));
    spy.reset();
    const r = await run("ListProcesses", { sort: "pid", limit: 500 }) as { processes: { pid: number }[] };
    expect(r.processes.some((p) => p.pid === forged.pid)).toBe(true);
    expect(spy.sent).toEqual(["channel", "write"]);
    const again = readerLoops(peer.pid);
    expect(again).toHaveLength(1);
    expect(again[0]).not.toBe(loops[0]);
    spy.reset();
    await run("ListProcesses");
    expect(spy.sent).toEqual(["write"]);
  });

  it("a reader left idle closes its channel (the pool can then close the connection); the next call opens a new one", async () => {
    const reader = new SshProcessReader(sessionExecOpener(sshSession(pool, { target: { host: "127.0.0.1", port: peer.port } })), "spy", { idleMs: 100 });
    const t = await reader.read();
    expect(t?.processes.some((p) => p.pid === forged.pid)).toBe(true);
    expect(reader.isOpen).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(reader.isOpen).toBe(false);
    expect((await reader.read())?.processes.length).toBeGreaterThan(0);
    reader.close();
    expect(reader.isOpen).toBe(false);
  });

  it("a command line holding a forged frame header is read as that command line: the frames are counted in bytes by the reader", async () => {
    const r = await run("ListProcesses", { sort: "pid", limit: 500 }) as { processes: { pid: number; argv: string[] }[] };
    const row = r.processes.find((p) => p.pid === forged.pid);
    expect(row?.argv).toEqual(["sh", "-c", "sleep 60", FORGED]);
    const one = r.processes.find((p) => p.pid === 1);
    expect(one?.argv).toEqual(readFileSync("/proc/1/cmdline", "utf8").split("\0").filter((x, i, all) => i < all.length - 1 || x !== ""));
  });
});
