import type { Client as SshClient, ClientChannel } from "ssh2";
import { HostgateError } from "../../core/errors.ts";
import type { ExecOutcome, ExecRequest, Executor } from "../../ports/executor.ts";
import { CapturedOutput } from "../exec-output.ts";
import { dial, recheckKeys, type DialOptions, type Hop, type PresentedKey } from "./dial.ts";

/**
 * Runs commands on remote hosts over SSH (ssh2). One pooled connection per (user, host, port, jump chain),
 * closed after `idle_ms` without a channel; at most `max_sessions` channels at once per connection (queued
 * beyond: OpenSSH's MaxSessions defaults to 10, corpus S013). stdin is closed at once, so a command that reads
 * it sees EOF instead of hanging. Output is capped per stream (`truncated`). Exit code and signal come from the
 * server's exit-status / exit-signal (S014); a channel closed without either reports "exit status unknown"
 * (S015). A timeout or an abort sends KILL to the remote process group and closes the channel.
 *
 * Killing: OpenSSH ignores the "signal" channel request for sessions without privilege separation (root
 * logins: "session signalling requires privilege separation"), so the command string is prefixed with
 * `echo hostgate-pid:$$ >&2;` — the session leader's pid, which is also its process group (sshd calls
 * setsid) — and that first stderr line is removed from the output. To kill, a second channel on the same
 * connection runs `kill -KILL -- -PID`; the signal request is sent as well for servers that honour it.
 */

/** Executor settings: dialing, pooling and caps. */
export interface SshExecutorOptions extends DialOptions {
  /** Close a pooled connection after this many milliseconds without a channel (default 60 000). */
  idle_ms?: number;
  /** Channels at once per connection (default 8, below OpenSSH's MaxSessions 10). */
  max_sessions?: number;
}

interface Conn {
  key: string;
  ready: Promise<{ client: SshClient; close: () => void; keys: PresentedKey[] }>;
  active: number;
  waiters: (() => void)[];
  idle: NodeJS.Timeout | undefined;
  dead: boolean;
  lost: Set<() => void>;
}

function hopKey(h: Hop, defUser: string): string {
  return `${h.user ?? defUser}@${h.host}:${h.port}`;
}

/**
 * Sends an SSH "signal" channel request. ssh2's `channel.signal()` sends nothing once stdin was closed (it
 * checks `writable`), and we close stdin at once; the protocol object below is the same one it would use.
 */
function sendSignal(ch: ClientChannel, name: string): void {
  const inner = ch as unknown as { outgoing?: { id: number; state: string }; _client?: { _protocol?: { signal(id: number, name: string): void } } };
  if (inner.outgoing?.state !== "open" && inner.outgoing?.state !== "eof") return;
  try {
    inner._client?._protocol?.signal(inner.outgoing.id, name);
  } catch {
    // the channel is closing; closing it below still ends the session
  }
}

const PID_PREFIX = "echo hostgate-pid:$$ >&2; ";

/** Kills a remote process group from a second channel (best effort; the first channel is being closed). */
function killGroup(client: SshClient, pid: number | null, extra: string | null | undefined): void {
  const lines = [...(pid !== null ? [`kill -KILL -- -${pid} 2>/dev/null || kill -KILL ${pid} 2>/dev/null`] : []), ...(extra ? [extra] : [])];
  if (lines.length === 0) return;
  try {
    client.exec(lines.join("; "), (e, ch) => {
      if (e) return;
      ch.end();
      ch.resume();
      ch.stderr.resume();
    });
  } catch {
    // the connection is gone: so is the session
  }
}

/** See the module comment; implements the Executor port. `close()` ends every pooled connection. */
export class SshExecutor implements Executor {
  private readonly pool = new Map<string, Conn>();
  private readonly opts: SshExecutorOptions;

  constructor(opts: SshExecutorOptions) {
    this.opts = opts;
  }

  /** Number of open pooled connections (for tests and doctor). */
  get connections(): number {
    return this.pool.size;
  }

  private conn(req: ExecRequest): Conn {
    const jumps = req.jumps ?? [];
    const key = [...jumps, req.target].map((h) => hopKey(h, this.opts.default_user)).join(" -> ");
    const existing = this.pool.get(key);
    if (existing && !existing.dead) return existing;
    const c: Conn = { key, ready: dial(req.target, jumps, this.opts), active: 0, waiters: [], idle: undefined, dead: false, lost: new Set() };
    this.pool.set(key, c);
    c.ready.then(({ client }) => {
      const gone = (): void => {
        c.dead = true;
        if (this.pool.get(key) === c) this.pool.delete(key);
        for (const f of c.lost) f();
      };
      client.on("close", gone);
      client.on("error", gone);
    }, () => {
      c.dead = true;
      if (this.pool.get(key) === c) this.pool.delete(key);
    });
    return c;
  }

  private async acquire(c: Conn): Promise<void> {
    const max = this.opts.max_sessions ?? 8;
    if (c.idle) {
      clearTimeout(c.idle);
      c.idle = undefined;
    }
    while (c.active >= max) await new Promise<void>((r) => c.waiters.push(r));
    c.active++;
  }

  private release(c: Conn): void {
    c.active--;
    const w = c.waiters.shift();
    if (w) {
      w();
      return;
    }
    if (c.active === 0 && !c.dead) {
      c.idle = setTimeout(() => {
        if (c.active > 0) return;
        c.dead = true;
        if (this.pool.get(c.key) === c) this.pool.delete(c.key);
        void c.ready.then(({ close }) => { close(); }, () => undefined);
      }, this.opts.idle_ms ?? 60_000);
      c.idle.unref();
    }
  }

  /**
   * Runs one command. Resolves with the result (also for non-zero exits, signals, timeouts, cancels and a
   * connection lost mid-command, which set `error`); rejects with HostgateError before anything ran:
   * `invalid_target`, `unreachable`, `host_key_unknown`, `host_key_mismatch`, `cancelled`, or `backend_error`
   * when the server refused to open a channel.
   */
  async exec(req: ExecRequest): Promise<ExecOutcome> {
    if (req.signal?.aborted) throw new HostgateError("cancelled", "cancelled before connecting");
    const c = this.conn(req);
    const { client, keys, close } = await c.ready;
    // A pooled connection lives only while its host keys are still trusted: a key removed or marked @revoked
    // in known_hosts since it was dialed closes it, and nothing is sent.
    const revoked = recheckKeys(keys, this.opts);
    if (revoked) {
      c.dead = true;
      if (this.pool.get(c.key) === c) this.pool.delete(c.key);
      close();
      throw revoked;
    }
    await this.acquire(c);
    try {
      return await this.run(c, client, req);
    } finally {
      this.release(c);
    }
  }

  private run(c: Conn, client: SshClient, req: ExecRequest): Promise<ExecOutcome> {
    const started = performance.now();
    const remoteCommand = `${PID_PREFIX}${req.command}`;
    return new Promise((resolve, reject) => {
      if (req.signal?.aborted) {
        reject(new HostgateError("cancelled", "cancelled before the command started"));
        return;
      }
      const captured = new CapturedOutput(req, started);
      let exitCode: number | null = null;
      let signal: string | null = null;
      let exited = false;
      let timedOut = false;
      let error: string | null = null;
      let channel: ClientChannel | undefined;
      let remotePid: number | null = null;
      let pidBuf: Buffer | null = Buffer.alloc(0);
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (): void => {
        if (done) return;
        done = true;
        if (timer) clearTimeout(timer);
        req.signal?.removeEventListener("abort", onAbort);
        c.lost.delete(onLost);
        if (!exited && error === null) error = "exit status unknown: the channel closed without exit-status or exit-signal";
        resolve(captured.outcome({ exit_code: exitCode, signal, timed_out: timedOut, error }));
      };
      const kill = (why: string): void => {
        if (done) return;
        error ??= why;
        if (channel) {
          sendSignal(channel, "KILL");
          killGroup(client, remotePid, req.kill_command);
          channel.close();
        }
        // A server that ignores the signal request still has the channel closed; do not wait on it forever.
        setTimeout(finish, 2000).unref();
      };
      const onAbort = (): void => {
        kill("cancelled by the client");
      };
      const onLost = (): void => {
        error ??= "connection lost while the command ran; its outcome is unknown";
        finish();
      };
      c.lost.add(onLost);
      req.signal?.addEventListener("abort", onAbort, { once: true });
      if (req.timeout_ms > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          kill(`timed out after ${req.timeout_ms} ms; the remote process was sent KILL`);
        }, req.timeout_ms);
      }
      client.exec(remoteCommand, (e, ch) => {
        if (e) {
          done = true;
          if (timer) clearTimeout(timer);
          req.signal?.removeEventListener("abort", onAbort);
          c.lost.delete(onLost);
          reject(new HostgateError("backend_error", `the SSH server refused a session channel: ${e.message}`, {
            hint: "The host limits concurrent sessions (MaxSessions); lower exec.max_sessions or retry. The command did not run.",
          }));
          return;
        }
        channel = ch;
        ch.end();
        ch.on("data", (d: Buffer) => { captured.add("stdout", d); });
        ch.stderr.on("data", (d: Buffer) => {
          if (pidBuf !== null) {
            pidBuf = Buffer.concat([pidBuf, d]);
            const nl = pidBuf.indexOf(10);
            if (nl < 0 && pidBuf.length < 64) return;
            const m = nl >= 0 ? /^hostgate-pid:(\d+)$/.exec(pidBuf.subarray(0, nl).toString("latin1")) : null;
            if (m) remotePid = Number(m[1]);
            d = m ? pidBuf.subarray(nl + 1) : pidBuf;
            pidBuf = null;
            if (d.length === 0) return;
          }
          captured.add("stderr", d);
        });
        ch.on("exit", (code: number | null, sig?: string) => {
          exited = true;
          if (typeof code === "number") exitCode = code;
          else if (sig) signal = sig.startsWith("SIG") ? sig : `SIG${sig}`;
        });
        ch.on("close", finish);
        if (req.signal?.aborted) onAbort();
      });
    });
  }

  /** Ends every pooled connection. */
  close(): void {
    for (const c of this.pool.values()) {
      c.dead = true;
      if (c.idle) clearTimeout(c.idle);
      void c.ready.then(({ close }) => { close(); }, () => undefined);
    }
    this.pool.clear();
  }
}
