import { homedir } from "node:os";
import { join } from "node:path";

/** Whether paths are for the system daemon (`hostgate daemon`) or one user's embedded daemon. */
export type DaemonMode = "system" | "embedded";

/**
 * Where state lives: config `state.dir` (which HOSTGATE_STATE_DIR overrides in config/loader.ts: env beats
 * file), else HOSTGATE_STATE_DIR (for callers that build a config without the loader), else /var/lib/hostgate for the system
 * daemon, else $XDG_STATE_HOME/hostgate (~/.local/state/hostgate) for the embedded one (DESIGN.md).
 */
export function stateDir(mode: DaemonMode, configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (configured) return configured;
  if (env.HOSTGATE_STATE_DIR) return env.HOSTGATE_STATE_DIR;
  if (mode === "system") return "/var/lib/hostgate";
  return join(env.XDG_STATE_HOME || join(homedir(), ".local", "state"), "hostgate");
}

/**
 * Where sockets live: HOSTGATE_RUNTIME_DIR, else /run/hostgate for the system daemon, else
 * $XDG_RUNTIME_DIR/hostgate (falling back to the state directory when XDG_RUNTIME_DIR is unset).
 */
export function runtimeDir(mode: DaemonMode, state: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOSTGATE_RUNTIME_DIR) return env.HOSTGATE_RUNTIME_DIR;
  if (mode === "system") return "/run/hostgate";
  return env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, "hostgate") : join(state, "run");
}

/**
 * hostgate's configuration directory, where the audit public key is pinned outside the state directory:
 * HOSTGATE_CONFIG_DIR, else /etc/hostgate for the system daemon, else $XDG_CONFIG_HOME/hostgate
 * (~/.config/hostgate) for the embedded one.
 */
export function configDir(mode: DaemonMode, env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOSTGATE_CONFIG_DIR) return env.HOSTGATE_CONFIG_DIR;
  if (mode === "system") return "/etc/hostgate";
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "hostgate");
}

/**
 * Default checkpoint copy of the system daemon: outside the state directory, made append-only at start
 * (`chattr +a`) so the daemon's user cannot rewrite it (issue 12). The embedded daemon has no default.
 */
export const SYSTEM_CHECKPOINT_COPY = "/var/log/hostgate/audit-checkpoints.jsonl";

/** {@link SYSTEM_CHECKPOINT_COPY}, or HOSTGATE_CHECKPOINT_COPY when set (tests keep theirs in a temp dir). */
export function systemCheckpointCopy(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOSTGATE_CHECKPOINT_COPY || SYSTEM_CHECKPOINT_COPY;
}
