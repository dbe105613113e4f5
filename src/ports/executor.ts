import type { ExecResult } from "../core/exec.ts";

/**
 * One process to run on one host. `argv[0]` is the program; no shell is involved unless argv names one.
 * `command` is the human-readable line recorded in the result and the audit chain (defaults to argv joined).
 */
export interface ExecRequest {
  /** Host id (`local` or an inventory name). */
  host: string;
  argv: readonly string[];
  command?: string;
  /** Working directory; absent: the executor's default (home of the remote user, / locally). */
  cwd?: string;
  /** Extra environment variables (names [A-Z_][A-Z0-9_]*); the executor starts from a minimal environment. */
  env?: Readonly<Record<string, string>>;
  /** Bytes written to stdin, then closed; absent: stdin is /dev/null. */
  stdin?: string;
  /** Wall-time budget in milliseconds; on expiry the process is killed (SIGTERM, then SIGKILL) and `timed_out` is true. */
  timeout_ms: number;
  /** Cap per stream in bytes; output past it is dropped and `truncated` is true. */
  max_output_bytes: number;
  /** Aborting kills the process like a timeout (but `timed_out` stays false) and resolves with what was read. */
  signal?: AbortSignal;
}

/**
 * Runs a process and reports DESIGN.md's exec result (command, argv, exit_code, signal, timed_out,
 * duration_ms, stdout, stderr, truncated). Local (adapters/exec-local) and SSH (adapters/exec-ssh)
 * executors both implement it. A process that ran and failed is a result (non-zero exit_code), not a throw;
 * throws HostgateError only when it could not be started: `unknown_host`, `host_unreachable`,
 * `auth_failed`, `spawn_failed`. Never decides whether the command may run: the caller has asked the risk
 * engine and policy first.
 */
export interface Executor {
  exec(request: ExecRequest): Promise<ExecResult>;
}
