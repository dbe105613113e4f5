import type { ActionContext, DistroFamily } from "../core/catalogue/action.ts";
import type { LogReadPolicy } from "../core/catalogue/log-policy.ts";
import { HostgateError } from "../core/errors.ts";
import { familyOf, parseOsRelease } from "../core/host/os-release.ts";
import type { HostMutator } from "../ports/host-mutator.ts";
import type { Clock } from "../ports/host-probe.ts";
import type { UnitManagerSet } from "../ports/unit-manager.ts";
import { nodeCrypto } from "./crypto-node.ts";
import { nodeX509 } from "./x509-node.ts";
import type { SshPool, SshRoute } from "./exec-ssh/pool.ts";
import { sshSession, type SshSession } from "./exec-ssh/session.ts";
import { SshHostProbe } from "./host-ssh.ts";
import { createUnavailableUnitManagers } from "./systemd-unavailable.ts";

/** What {@link sshActionContext} needs: the shared pool, where the host is, and the per-host settings. */
export interface SshContextOptions {
  pool: SshPool;
  route: SshRoute;
  /** The host's inventory name: errors and messages name it. */
  name: string;
  /** Which log files ReadLogFile may return there (configuration `logs.readable`; a `group` gid is the remote one). */
  logs_readable: LogReadPolicy;
  clock?: Clock;
  /** The host's systemd managers; until the remote D-Bus port exists, every call answers `unavailable`. */
  units?: UnitManagerSet;
  /** The host's mutator; until the SSH mutator exists, every call answers `unavailable`. */
  mutator?: HostMutator;
  /** The session the ports use (default: a session of `pool` on `route`; tests pass one that counts requests). */
  session?: SshSession;
}

/** A remote host's action context and what was learnt building it. */
export interface SshHostContext {
  /** The ports of that host; `self_pid` is -1 (no hostgate process runs there), `protected_paths` empty. */
  ctx: ActionContext;
  /** Its own name (/proc/sys/kernel/hostname), for provenance. */
  hostname: string;
  family: DistroFamily;
  /** The session the ports use (the remote mutator and D-Bus are built on it too). */
  session: SshSession;
  /** `ctx.host` as built: its `close()` ends the channel it keeps (the process reader) when the context is dropped. */
  probe: SshHostProbe;
}

/** A HostMutator that refuses everything, saying the SSH mutator is not there yet. */
function unavailableMutator(name: string): HostMutator {
  const fail = (): Promise<never> => Promise.reject(new HostgateError("unavailable", `Changes on ${name} over SSH are not available in this build (no SSH HostMutator is composed).`, {
    hint: "Plan the change on a host this daemon can change, or run it through exec_on_host (when an admin has set exec.enabled: true).",
    details: { host: name },
  }));
  return { writeFileAtomic: fail, signal: fail, run: fail, removeFile: fail, writeSysctl: fail, createRootFile: fail };
}

/**
 * Builds the action context of one SSH host over the shared pool: dials (or reuses) the connection, then reads
 * the remote /etc/os-release (else /usr/lib/os-release) for the distro family and /proc/sys/kernel/hostname, two
 * SFTP reads pipelined on one channel. Rejects with the pool's errors (`unreachable`, `host_key_unknown`,
 * `host_key_mismatch`, `invalid_target`) or `unavailable` (no SFTP subsystem, connection lost). The clock and
 * the hasher are the daemon's (time and SHA-256 do not depend on the host).
 */
export async function sshActionContext(o: SshContextOptions): Promise<SshHostContext> {
  const session = o.session ?? sshSession(o.pool, o.route);
  const host = new SshHostProbe(session, o.name);
  const read = (path: string): Promise<string> => host.readText(path).catch((e: unknown) => {
    if (e instanceof HostgateError && (e.code === "not_found" || e.code === "permission_denied")) return "";
    throw e;
  });
  const [etc, hostnameText] = await Promise.all([read("/etc/os-release"), read("/proc/sys/kernel/hostname")]);
  const osRelease = etc || (await read("/usr/lib/os-release"));
  const family = familyOf(parseOsRelease(osRelease));
  const hostname = hostnameText.trim() || o.name;
  const ctx: ActionContext = {
    host,
    clock: o.clock ?? { now: () => Date.now() },
    family,
    units: o.units ?? createUnavailableUnitManagers(`no remote systemd backend is composed for ${o.name}`),
    mutator: o.mutator ?? unavailableMutator(o.name),
    hash: nodeCrypto,
    self_pid: -1,
    protected_paths: [],
    logs_readable: o.logs_readable,
    x509: nodeX509,
  };
  return { ctx, hostname, family, session, probe: host };
}
