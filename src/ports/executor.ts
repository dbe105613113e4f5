import type { ExecOutcome } from "../core/exec.ts";

export type { ExecOutcome };

/**
 * One SSH endpoint (a target or a ProxyJump hop). `port` is the TCP port; `user` defaults to the executor's
 * default login user, `identity_files` to its default keys.
 */
export interface ExecEndpoint {
  host: string;
  port: number;
  user?: string | undefined;
  identity_files?: readonly string[] | undefined;
}

/**
 * One command to run on one host. `command` is the exact string the remote login shell receives (the caller
 * has quoted it, e.g. `exec sh -c '<line>'`); `argv` is what the risk engine parsed, only reported back in the
 * result and the audit chain.
 */
export interface ExecRequest {
  target: ExecEndpoint;
  /** ProxyJump hops, outermost first; each is verified against its own name. */
  jumps?: readonly ExecEndpoint[] | undefined;
  command: string;
  argv?: readonly string[] | undefined;
  /** Wall-time budget in milliseconds (0 = none); on expiry the remote process group is killed and `timed_out` is true. */
  timeout_ms: number;
  /** Cap per stream (stdout, stderr) in bytes; output past it is dropped and `truncated` is true. */
  max_output_bytes: number;
  /**
   * A shell line run (from another session) when the command is killed, besides killing its process group:
   * what ends a run the group kill cannot reach (a systemd-run unit). Fixed text from core/sandbox, never a model's.
   */
  kill_command?: string | null | undefined;
  /** Aborting kills the process like a timeout (but `timed_out` stays false) and resolves with what was read. */
  signal?: AbortSignal | undefined;
}

/**
 * Runs one command on one host and reports its exec result; implemented by adapters/exec-ssh/ssh-executor.ts.
 * A command that ran and failed, timed out, was cancelled or lost its connection is a result (with `error`),
 * not a throw; it rejects with HostgateError only when nothing ran: `invalid_target`, `unreachable`,
 * `host_key_unknown`, `host_key_mismatch`, `cancelled`, `backend_error`. Never decides whether the command may
 * run: the caller has asked the risk engine and the PolicyEngine first.
 */
export interface Executor {
  exec(request: ExecRequest): Promise<ExecOutcome>;
}
