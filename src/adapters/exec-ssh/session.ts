import type { ClientChannel, SFTPWrapper } from "ssh2";
import { HostgateError } from "../../core/errors.ts";
import { shellJoin } from "../../core/inventory/target.ts";
import type { ExecOutcome } from "../../ports/executor.ts";
import type { PresentedKey } from "./dial.ts";
import { openLeasedChannel, type ChannelSpec, type SshPool, type SshRoute } from "./pool.ts";
import { SshExecutor } from "./ssh-executor.ts";

/** Options of {@link SshSession.exec}: wall-time budget and per-stream cap, as the Executor port has them. */
export interface SessionExecOptions {
  /** Milliseconds; on expiry the remote process group is killed and `timed_out` is true (default 15 000; 0 = none). */
  timeoutMs?: number;
  /** Bytes per stream (stdout, stderr); past it output is dropped and `truncated` set (default 1 MiB). */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

/**
 * What an SSH port needs of one host, over the shared pool: `exec` a command (a string goes to the remote login
 * shell as is; an argv is quoted element by element by `shellJoin`, so it runs without shell semantics) and get
 * its exec result (`error` set when it timed out, was cancelled or lost its connection); the connection's shared
 * `sftp()` session; or `openChannel` a raw stream (an exec or a subsystem, e.g. `systemd-stdio-bridge` for the
 * remote D-Bus), whose pool slot is freed when the channel closes. `label` is `user@host:port` for messages.
 * Everything rejects with the pool's HostgateError codes (`unreachable`, `host_key_*`, `invalid_target`,
 * `backend_error` for a refused channel).
 */
export interface SshSession {
  readonly label: string;
  readonly route: SshRoute;
  exec(argvOrCommand: string | readonly string[], opts?: SessionExecOptions): Promise<ExecOutcome>;
  sftp(): Promise<SFTPWrapper>;
  openChannel(spec: ChannelSpec): Promise<ClientChannel>;
  /** The connection's login user and the target's verified host key (SshPool.identity; no channel opened). */
  identity(): Promise<{ user: string; key: PresentedKey }>;
}

/** A session on `route` over `pool` (nothing is dialed until the first call). */
export function sshSession(pool: SshPool, route: SshRoute): SshSession {
  const executor = new SshExecutor(pool);
  const t = route.target;
  const label = `${t.user ?? pool.opts.default_user}@${t.host}:${t.port}`;
  return {
    label,
    route,
    exec(argvOrCommand, opts = {}) {
      if (typeof argvOrCommand !== "string" && argvOrCommand.length === 0) {
        return Promise.reject(new HostgateError("invalid_params", "exec() needs a non-empty argv."));
      }
      const command = typeof argvOrCommand === "string" ? argvOrCommand : shellJoin(argvOrCommand);
      return executor.exec({
        ...route,
        command,
        argv: typeof argvOrCommand === "string" ? undefined : argvOrCommand,
        timeout_ms: opts.timeoutMs ?? 15_000,
        max_output_bytes: opts.maxOutputBytes ?? 1024 * 1024,
        signal: opts.signal,
      });
    },
    sftp: () => pool.sftp(route),
    async openChannel(spec) {
      return openLeasedChannel(await pool.acquire(route), spec);
    },
    identity: () => pool.identity(route),
  };
}
