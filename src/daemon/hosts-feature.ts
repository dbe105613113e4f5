import type { SshPool } from "../adapters/exec-ssh/pool.ts";
import type { HostsFeature } from "../app/deps.ts";
import type { RemoteContextFactory } from "../app/hosts.ts";
import type { LogReadPolicy } from "../core/catalogue/log-policy.ts";
import type { Clock } from "../ports/host-probe.ts";
import type { Config } from "../config/schema.ts";
import type { DaemonFeature } from "./feature.ts";
import type { DaemonMode } from "./paths.ts";
import type { PolicyService } from "./policy.ts";
import { sshRemoteContexts } from "./remote-contexts.ts";
import { tracedExecutor } from "./traced-ports.ts";
import { NO_TRACER, type Tracer } from "../core/trace.ts";

/**
 * The hosts feature as the daemon holds it (docs/hosts.md): inventory, SSH executor, sandboxes and the risk
 * engine load on first use (start-up stays light for clients that never touch them); `get()` joins them with
 * the policy service's engine at each use, so a policy directory that does not load fails that call (fail
 * closed) and a fixed one is picked up at the next.
 */
export interface HostsFeatureHandle extends DaemonFeature {
  get(): Promise<HostsFeature>;
  /** True once the adapters are built. */
  loaded(): boolean;
  /**
   * The default factory of inventory hosts' typed contexts (daemon/remote-contexts.ts), over the same SshPool as
   * the SSH executor (exec_on_host): one connection per host serves both.
   */
  remoteContexts(o: { logs_readable: LogReadPolicy; clock: Clock }): RemoteContextFactory;
}

export function composeHostsFeature(config: Config, opts: { mode: DaemonMode; state: string; hideDirs: readonly string[]; policy: PolicyService; onTrustedFirstUse: (name: string, fingerprint: string) => void; tracer?: Tracer }): HostsFeatureHandle {
  type Built = Omit<HostsFeature, "policy"> & { close(): void; pool: SshPool };
  let built: Promise<Built> | null = null;
  let close: (() => void) | null = null;
  const core = (): Promise<Built> => (built ??= (async () => {
    const [{ composeHosts }, { loadRiskEngine }] = await Promise.all([import("./hosts.ts"), import("../adapters/shell-parser.ts")]);
    const h = composeHosts(config, { mode: opts.mode, stateDir: opts.state, hideDirs: opts.hideDirs, onTrustedFirstUse: opts.onTrustedFirstUse });
    close = () => { h.close(); };
    // Issue 25: each command on a host is a span when tracing is on (daemon/traced-ports.ts).
    const tracer = opts.tracer ?? NO_TRACER;
    return { ...h, executor: tracedExecutor(h.executor, tracer, "ssh"), local: tracedExecutor(h.local, tracer, "local"), pool: h.executor.pool, engine: loadRiskEngine() };
  })());
  return {
    name: "hosts",
    get: async () => {
      const [h, policy] = await Promise.all([core(), opts.policy.engine()]);
      return { ...h, policy };
    },
    remoteContexts: (o) => sshRemoteContexts({ ...o, feature: async () => { const h = await core(); return { hosts: { ...h, policy: null }, pool: h.pool }; } }),
    loaded: () => close !== null,
    doctor: async () => (await core()).doctor(),
    close: () => { close?.(); },
  };
}
