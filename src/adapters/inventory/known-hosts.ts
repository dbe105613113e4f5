import { readFileSync } from "node:fs";
import { listableHosts, parseKnownHosts } from "../../core/inventory/known-hosts.ts";
import type { HostRecord } from "../../core/inventory/record.ts";
import { HostgateError } from "../../core/errors.ts";
import type { ProviderConfig } from "../../config/hosts.ts";
import type { BackendInfo, InventoryProvider } from "../../ports/inventory-provider.ts";

type KnownHostsConfig = Extract<ProviderConfig, { kind: "known_hosts" }>;

/**
 * Hosts named in known_hosts files (`kind: known_hosts`). Hashed entries (`|1|salt|hash`, HashKnownHosts yes)
 * cannot be listed — only tested against a name — so they are counted and `list_backends` says so.
 */
export class KnownHostsProvider implements InventoryProvider {
  readonly info: BackendInfo;
  private readonly files: string[];
  private readonly tags: string[];
  private readonly become: "none" | "sudo" | undefined;
  private hashedSeen = 0;

  constructor(cfg: KnownHostsConfig, home: string) {
    this.files = (cfg.files ?? ["~/.ssh/known_hosts"]).map((f) => (f.startsWith("~/") ? `${home}${f.slice(1)}` : f));
    this.tags = cfg.tags;
    this.become = cfg.become;
    this.info = { kind: "known_hosts", name: cfg.name ?? "known_hosts", hint: this.files.join(", "), notes: ["hashed entries (|1|…) cannot be listed, only checked against a given name"] };
  }

  cacheKey(): string {
    return this.info.name;
  }

  list(): Promise<HostRecord[]> {
    const out = new Map<string, HostRecord>();
    let hashed = 0;
    for (const f of this.files) {
      let text: string;
      try {
        text = readFileSync(f, "utf8");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
        return Promise.reject(new HostgateError("backend_error", `cannot read ${f}: ${(e as Error).message}`, { hint: "Fix the file's permissions or remove it from inventory.providers." }));
      }
      for (const e of parseKnownHosts(text).entries) {
        if (e.marker !== null) continue;
        if (e.hashed) {
          hashed++;
          continue;
        }
        for (const h of listableHosts(e)) {
          const key = `${h.host}:${h.port}`;
          if (out.has(key)) continue;
          out.set(key, {
            name: h.port === 22 ? h.host : `${h.host}:${h.port}`,
            primary_ip: h.host,
            provider: "known_hosts",
            backend: this.info.name,
            meta: { key_type: e.key_type },
            tags: [...this.tags],
            ssh: { host: h.host, port: h.port, identity_files: [], proxy_jump: [], become: this.become },
          });
        }
      }
    }
    this.hashedSeen = hashed;
    this.info.notes[0] = `hashed entries (|1|…) cannot be listed, only checked against a given name${hashed > 0 ? `: ${hashed} hashed entr${hashed === 1 ? "y" : "ies"} not listed` : ""}`;
    return Promise.resolve([...out.values()]);
  }

  /** Hashed entries skipped by the last listing. */
  get hashedCount(): number {
    return this.hashedSeen;
  }
}
