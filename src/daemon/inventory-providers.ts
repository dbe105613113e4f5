import { DockerProvider } from "../adapters/inventory/docker.ts";
import { KnownHostsProvider } from "../adapters/inventory/known-hosts.ts";
import { SshConfigProvider } from "../adapters/inventory/ssh-config.ts";
import { StaticProvider } from "../adapters/inventory/static.ts";
import type { ProviderConfig } from "../config/hosts.ts";
import type { ProviderKind } from "../core/inventory/record.ts";
import type { InventoryProvider } from "../ports/inventory-provider.ts";

/** Builds one backend of kind `K` from its validated config section; `home` expands `~/` paths. */
type Factory<K extends ProviderKind> = (c: Extract<ProviderConfig, { kind: K }>, home: string) => InventoryProvider;

/**
 * The adapter of every provider kind of the registry (core/inventory/providers/index.ts). Typed by it: a kind
 * listed there without a line here does not compile.
 */
const FACTORIES: { [K in ProviderKind]: Factory<K> } = {
  static: (c) => new StaticProvider(c),
  ssh_config: (c, home) => new SshConfigProvider(c, home),
  known_hosts: (c, home) => new KnownHostsProvider(c, home),
  docker: (c) => new DockerProvider(c),
};

/** The InventoryProvider for one configured backend. */
export function inventoryProvider(c: ProviderConfig, home: string): InventoryProvider {
  // The table is indexed by the config's own kind, so each factory receives its own section.
  const build = FACTORIES[c.kind] as (c: ProviderConfig, home: string) => InventoryProvider;
  return build(c, home);
}
