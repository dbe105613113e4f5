import type { ClientChannel } from "ssh2";
import { HostgateError } from "../core/errors.ts";
import type { SshSession } from "./exec-ssh/session.ts";

/**
 * The one thing the remote ports (host-mutator-ssh, systemd-bridge-ssh) need from SSH: open an exec channel on
 * a verified, pooled connection for one command string (the remote login shell parses it: every argument in
 * it must have been quoted with core/inventory/target.ts shellJoin). Opening rejects with HostgateError
 * (`unreachable`, `host_key_unknown`, `host_key_mismatch`, `backend_error` when the server refuses the channel).
 * The channel is an ssh2 ClientChannel: stdout is the stream itself, `stderr` beside it, `exit` gives the exit
 * status or signal; closing it gives the connection's channel slot back.
 */
export type OpenExec = (command: string) => Promise<ClientChannel>;

/** What one remote command returned. Output is bytes (scripts frame it); `timed_out` when the budget ran out. */
export interface RemoteRun {
  exit_code: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  truncated: boolean;
  timed_out: boolean;
  duration_ms: number;
}

/** Options of {@link runRemote}: `stdin` is written then closed (absent: closed at once); caps in bytes per stream. */
export interface RemoteRunOptions {
  stdin?: Buffer | string;
  timeoutMs: number;
  maxOutputBytes: number;
}

/**
 * Runs `command` on one exec channel and collects its output. A timeout closes the channel and resolves with
 * `timed_out: true` (the fixed scripts are short; long commands carry their own remote `timeout`). A
 * connection lost mid-command resolves with `exit_code: null` and whatever was read. Rejects only when the
 * channel could not be opened (see {@link OpenExec}).
 */
export async function runRemote(open: OpenExec, command: string, opts: RemoteRunOptions): Promise<RemoteRun> {
  const started = performance.now();
  const ch = await open(command);
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const used = { out: 0, err: 0 };
    let truncated = false;
    let exitCode: number | null = null;
    let signal: string | null = null;
    let timedOut = false;
    const keep = (list: Buffer[], which: "out" | "err", d: Buffer): void => {
      const room = opts.maxOutputBytes - used[which];
      if (d.length > room) truncated = true;
      if (room <= 0) return;
      const part = d.length > room ? d.subarray(0, room) : d;
      list.push(part);
      used[which] += part.length;
    };
    const timer = opts.timeoutMs > 0 ? setTimeout(() => {
      timedOut = true;
      ch.close();
    }, opts.timeoutMs) : undefined;
    ch.on("data", (d: Buffer) => { keep(out, "out", d); });
    ch.stderr.on("data", (d: Buffer) => { keep(err, "err", d); });
    ch.on("exit", (code: number | null, sig?: string) => {
      if (typeof code === "number") exitCode = code;
      else if (sig) signal = sig.startsWith("SIG") ? sig : `SIG${sig}`;
    });
    ch.on("close", () => {
      clearTimeout(timer);
      resolve({
        exit_code: exitCode, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), truncated, timed_out: timedOut,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
      });
    });
    if (opts.stdin !== undefined) ch.end(opts.stdin);
    else ch.end();
  });
}

/** The error for a remote script that did not finish (timeout, lost connection): what is known, and that the outcome is unknown. */
export function incomplete(host: string, what: string, r: RemoteRun): HostgateError {
  const why = r.timed_out ? `did not finish within the time budget (${Math.round(r.duration_ms)} ms)` : "lost its connection before it finished";
  return new HostgateError("unavailable", `${what} on ${host} ${why}; its outcome is unknown.`, {
    hint: "Check the host (history shows what was attempted), then plan again.",
    details: { host, exit_code: r.exit_code, signal: r.signal, timed_out: r.timed_out },
  });
}

/**
 * The OpenExec of one host's SSH session on the shared pool (adapters/exec-ssh/session.ts): each command gets
 * its own exec channel, whose pool slot is freed when the channel closes.
 */
export function sessionExecOpener(session: Pick<SshSession, "openChannel">): OpenExec {
  return (command) => session.openChannel({ command });
}
