import type { Client as SshClient, ClientChannel } from "ssh2";
import { HostgateError } from "../../core/errors.ts";
import type { ExecOutcome, ExecRequest, Executor } from "../../ports/executor.ts";
import { CapturedOutput } from "../exec-output.ts";
import { connectionFacts } from "../ssh-connection.ts";
import { SshPool, type SshLease, type SshPoolOptions } from "./pool.ts";

/**
 * Runs commands on remote hosts over SSH (ssh2), one channel per command on a connection of an SshPool
 * (pool.ts: one connection per user, host, port and jump chain, host keys re-checked before each command, idle
 * close, at most `max_sessions` channels at once per connection, corpus S013). stdin is closed at once, so a command that reads
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

/** Executor settings: dialing, pooling and caps (the pool's options). */
export type SshExecutorOptions = SshPoolOptions;

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

/** The part of ssh2's client internals {@link sendEofWithRequest} uses (absent on another version: it does nothing). */
interface Inner {
  _protocol?: { exec(id: number, cmd: string, wantReply: boolean): unknown; channelEOF(id: number): unknown };
  _sock?: { cork?: () => void; uncork?: () => void };
}
/** Per ssh2 protocol object: commands waiting for their exec request (a count each), channels whose EOF was sent. */
const earlyEof = new WeakMap<object, { waiting: Map<string, number>; sent: Set<number> }>();

/**
 * Makes the exec request of `command` on `client` leave with the channel's EOF in one socket write (issue 20): ssh2
 * sends the EOF of `ch.end()` only after the server confirmed the request, a packet and a write of its own per
 * command; the executor never writes to stdin, so the EOF may follow the request at once (RFC 4254 5.3), as
 * OpenSSH's `ssh host cmd </dev/null` sends it. ssh2's protocol object (`_protocol`) sends the request; its `exec`
 * is wrapped once per connection and sends the EOF right after the request for a command registered here, between
 * a cork and an uncork of the socket. Returns `sent(ch)`, to call with the opened channel before `ch.end()`: when
 * its EOF already left with the request, the channel is marked so ssh2 does not send a second one; and `cancel()`
 * for a channel that never opened (its registration is dropped).
 * Commands of other channels on the connection (a kept reader, a D-Bus bridge: they write to stdin) are not
 * registered and keep their stdin open.
 */
function sendEofWithRequest(client: SshClient, command: string): { sent(ch: ClientChannel): void; cancel(): void } {
  const proto = (client as unknown as Inner)._protocol;
  const sock = (client as unknown as Inner)._sock;
  if (!proto || typeof proto.exec !== "function" || typeof proto.channelEOF !== "function") return { sent: () => undefined, cancel: () => undefined };
  let st = earlyEof.get(proto);
  if (!st) {
    const state = (st = { waiting: new Map<string, number>(), sent: new Set<number>() });
    earlyEof.set(proto, state);
    const exec = proto.exec.bind(proto);
    const eof = proto.channelEOF.bind(proto);
    proto.exec = (id, cmd, wantReply) => {
      const n = state.waiting.get(cmd) ?? 0;
      if (n === 0) {
        // A channel id is reused once closed: a request sent without the EOF clears what an earlier one left.
        state.sent.delete(id);
        return exec(id, cmd, wantReply);
      }
      if (n === 1) state.waiting.delete(cmd);
      else state.waiting.set(cmd, n - 1);
      sock?.cork?.();
      try {
        const r = exec(id, cmd, wantReply);
        eof(id);
        state.sent.add(id);
        return r;
      } finally {
        sock?.uncork?.();
      }
    };
  }
  const state = st;
  state.waiting.set(command, (state.waiting.get(command) ?? 0) + 1);
  return {
    sent: (ch) => {
      const out = (ch as unknown as { outgoing?: { id: number; state: string } }).outgoing;
      if (out && state.sent.delete(out.id) && out.state === "open") out.state = "eof";
    },
    cancel: () => {
      const n = state.waiting.get(command) ?? 0;
      if (n <= 1) state.waiting.delete(command);
      else state.waiting.set(command, n - 1);
    },
  };
}

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

/**
 * See the module comment; implements the Executor port. Built on an {@link SshPool}: its own (from options) or
 * one shared with the other SSH ports. `close()` closes the pool only when the executor made it.
 */
export class SshExecutor implements Executor {
  readonly pool: SshPool;
  private readonly ownsPool: boolean;

  constructor(optsOrPool: SshExecutorOptions | SshPool) {
    this.ownsPool = !(optsOrPool instanceof SshPool);
    this.pool = optsOrPool instanceof SshPool ? optsOrPool : new SshPool(optsOrPool);
  }

  /** Number of open pooled connections (for tests and doctor). */
  get connections(): number {
    return this.pool.connections;
  }

  /**
   * Runs one command. Resolves with the result (also for non-zero exits, signals, timeouts, cancels and a
   * connection lost mid-command, which set `error`); rejects with HostgateError before anything ran:
   * `invalid_target`, `unreachable`, `host_key_unknown`, `host_key_mismatch`, `cancelled`, or `backend_error`
   * when the server refused to open a channel.
   */
  async exec(req: ExecRequest): Promise<ExecOutcome> {
    const lease = await this.pool.acquire(req, req.signal);
    try {
      const key = lease.keys[lease.keys.length - 1];
      const out = await this.run(lease, req);
      return key ? { ...out, connection: connectionFacts({ user: req.target.user ?? this.pool.opts.default_user, key }, false) } : out;
    } finally {
      lease.release();
    }
  }

  private run(lease: SshLease, req: ExecRequest): Promise<ExecOutcome> {
    const client = lease.client;
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
        unsubscribe();
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
      const unsubscribe = lease.onLost(onLost);
      req.signal?.addEventListener("abort", onAbort, { once: true });
      if (req.timeout_ms > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          kill(`timed out after ${req.timeout_ms} ms; the remote process was sent KILL`);
        }, req.timeout_ms);
      }
      const eof = sendEofWithRequest(client, remoteCommand);
      client.exec(remoteCommand, (e, ch) => {
        if (e) {
          eof.cancel();
          done = true;
          if (timer) clearTimeout(timer);
          req.signal?.removeEventListener("abort", onAbort);
          unsubscribe();
          reject(new HostgateError("backend_error", `the SSH server refused a session channel: ${e.message}`, {
            hint: "The host limits concurrent sessions (MaxSessions); lower exec.max_sessions or retry. The command did not run.",
          }));
          return;
        }
        channel = ch;
        eof.sent(ch);
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

  /** Ends every pooled connection when the executor made its pool (a shared pool is closed by its owner). */
  close(): void {
    if (this.ownsPool) this.pool.close();
  }
}
