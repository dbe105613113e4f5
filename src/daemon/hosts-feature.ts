import type { HostsFeature } from "../app/deps.ts";
import type { Config } from "../config/schema.ts";
import type { DaemonFeature } from "./feature.ts";
import type { DaemonMode } from "./paths.ts";
import type { PolicyService } from "./policy.ts";

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
}

export function composeHostsFeature(config: Config, opts: { mode: DaemonMode; state: string; hideDirs: readonly string[]; policy: PolicyService; onTrustedFirstUse: (name: string, fingerprint: string) => void }): HostsFeatureHandle {
  type Built = Omit<HostsFeature, "policy"> & { close(): void };
  let built: Promise<Built> | null = null;
  let close: (() => void) | null = null;
  const core = (): Promise<Built> => (built ??= (async () => {
    const [{ composeHosts }, { loadRiskEngine }] = await Promise.all([import("./hosts.ts"), import("../adapters/shell-parser.ts")]);
    const h = composeHosts(config, { mode: opts.mode, stateDir: opts.state, hideDirs: opts.hideDirs, onTrustedFirstUse: opts.onTrustedFirstUse });
    close = () => { h.close(); };
    return { ...h, engine: loadRiskEngine() };
  })());
  return {
    name: "hosts",
    get: async () => {
      const [h, policy] = await Promise.all([core(), opts.policy.engine()]);
      return { ...h, policy };
    },
    loaded: () => close !== null,
    doctor: async () => (await core()).doctor(),
    close: () => { close?.(); },
  };
}
