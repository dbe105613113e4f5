import type { ExecOutcome, ExecRequest } from "../ports/executor.ts";

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

  /** The exec result: the request's command and argv, the given outcome fields and the captured streams. */
  outcome(o: { exit_code: number | null; signal: string | null; timed_out: boolean; error: string | null }): ExecOutcome {
    return {
      command: this.req.command,
      argv: [...(this.req.argv ?? [])],
      ...o,
      duration_ms: Math.round((performance.now() - this.started) * 100) / 100,
      stdout: Buffer.concat(this.chunks.stdout).toString("utf8"),
      stderr: Buffer.concat(this.chunks.stderr).toString("utf8"),
      truncated: this.truncated,
    };
  }
}
