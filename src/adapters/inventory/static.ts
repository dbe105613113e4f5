import type { HostRecord } from "../../core/inventory/record.ts";
import type { ProviderConfig } from "../../config/hosts.ts";
import type { BackendInfo, InventoryProvider } from "../../ports/inventory-provider.ts";

type StaticConfig = Extract<ProviderConfig, { kind: "static" }>;

/** Hosts listed in the config file (`kind: static`). */
export class StaticProvider implements InventoryProvider {
  readonly info: BackendInfo;
  private readonly records: HostRecord[];

  constructor(cfg: StaticConfig) {
    const backend = cfg.name ?? "static";
    this.info = { kind: "static", name: backend, hint: `${cfg.hosts.length} hosts in the config file`, notes: [] };
    this.records = cfg.hosts.map((h) => ({
      name: h.name,
      primary_ip: h.address,
      provider: "static",
      backend,
      meta: { ...h.meta },
      tags: [...new Set([...cfg.tags, ...h.tags])],
      ssh: { host: h.address, port: h.port, user: h.user, identity_files: [], proxy_jump: [], become: h.become ?? cfg.become },
    }));
  }

  cacheKey(): string {
    return this.info.name;
  }

  list(): Promise<HostRecord[]> {
    return Promise.resolve(this.records);
  }
}
