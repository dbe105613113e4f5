import type { ConnectionFacts } from "../ports/host-connection.ts";

/**
 * The result of running one process (DESIGN.md, Words: exec result). Shared by local and SSH executors.
 * `signal` is the POSIX signal name when the process was killed by one, `duration_ms` is wall time in
 * milliseconds, `truncated` is true when stdout or stderr exceeded the caller's byte cap and was cut.
 */
export interface ExecResult {
  command: string;
  argv: readonly string[];
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  duration_ms: number;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

/** An exec result plus `error`: why the outcome is incomplete (timeout, cancel, connection lost, exit status unknown), or null. */
export interface ExecOutcome extends ExecResult {
  error: string | null;
  /** Over SSH: the connection it ran on (login user, verified host key), for the audit entry. Absent locally. */
  connection?: ConnectionFacts;
}
