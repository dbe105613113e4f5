import type { ExecOutcome, ExecRequest } from "../ports/executor.ts";

/** The status `timeout -s KILL` exits with when it killed the command: 128 + 9 (timeout(1), "EXIT STATUS"). */
const KILLED_AT_DEADLINE = 137;

/**
 * What one command printed, as both executors (exec-local, exec-ssh) collect it: each stream capped at the
 * request's `max_output_bytes` (bytes past it are dropped and `truncated` is set), then the exec result built
 * from it with the wall time since `started` (performance.now() milliseconds, rounded to 0.01 ms).
 */
export class CapturedOutput {
  private readonly chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  private readonly used = { stdout: 0, stderr: 0 };
  private truncated = false;

  constructor(private readonly req: ExecRequest, private readonly started: number) {}

  /** Keeps what fits of `d` in `stream`. */
  add(stream: "stdout" | "stderr", d: Buffer): void {
    const room = this.req.max_output_bytes - this.used[stream];
    if (d.length > room) this.truncated = true;
    if (room <= 0) return;
    const part = d.length > room ? d.subarray(0, room) : d;
    this.chunks[stream].push(part);
    this.used[stream] += part.length;
  }

  /**
   * The exec result: the request's command and argv, the given outcome fields and the captured streams.
   * A command that ran into its deadline reads the same whichever clock ended it: `timed_out` with `exit_code`
   * null. The daemon's timer may fire first (the executor passes `timed_out`), or, when the daemon is busy, the
   * host's own `timeout -s KILL` (the sandbox's backstop) may: then the command "exits" 137 at or after
   * `timeout_ms`, which is reported as the timeout it is, with signal SIGKILL.
   */
  outcome(o: { exit_code: number | null; signal: string | null; timed_out: boolean; error: string | null }): ExecOutcome {
    const duration_ms = Math.round((performance.now() - this.started) * 100) / 100;
    const hostDeadline = !o.timed_out && o.exit_code === KILLED_AT_DEADLINE && this.req.timeout_ms > 0 && duration_ms >= this.req.timeout_ms;
    const timed_out = o.timed_out || hostDeadline;
    return {
      command: this.req.command,
      argv: [...(this.req.argv ?? [])],
      exit_code: timed_out ? null : o.exit_code,
      signal: hostDeadline ? "SIGKILL" : o.signal,
      timed_out,
      error: hostDeadline ? o.error ?? `timed out after ${this.req.timeout_ms} ms; the host's deadline (timeout -s KILL) ended it` : o.error,
      duration_ms,
      stdout: Buffer.concat(this.chunks.stdout).toString("utf8"),
      stderr: Buffer.concat(this.chunks.stderr).toString("utf8"),
      truncated: this.truncated,
    };
  }
}
