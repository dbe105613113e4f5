import Docker from "dockerode";
import { HostgateError } from "../../core/errors.ts";
import type { HostRecord } from "../../core/inventory/record.ts";
import type { ProviderConfig } from "../../config/hosts.ts";
import type { BackendInfo, InventoryProvider, ListOptions } from "../../ports/inventory-provider.ts";

type DockerConfig = Extract<ProviderConfig, { kind: "docker" }>;

/**
 * Containers of a Docker Engine API (`kind: docker`) over its Unix socket, with dockerode. Docker itself and
 * podman's API service (`podman system service`) both speak it. A running container has the `docker_exec`
 * capability; containers are not SSH targets (no `ssh` endpoint).
 */
export class DockerProvider implements InventoryProvider {
  readonly info: BackendInfo;
  private readonly cfg: DockerConfig;

  constructor(cfg: DockerConfig) {
    this.cfg = cfg;
    this.info = { kind: "docker", name: cfg.name ?? "docker", hint: cfg.socket, notes: ["containers are reached with docker exec, not SSH"] };
  }

  cacheKey(o: Readonly<Record<string, unknown>>): string {
    return JSON.stringify([this.info.name, o.all ?? this.cfg.all, o.label ?? this.cfg.label ?? ""]);
  }

  async list(opts: ListOptions): Promise<HostRecord[]> {
    const all = (opts.overrides.all as boolean | undefined) ?? this.cfg.all;
    const label = (opts.overrides.label as string | undefined) ?? this.cfg.label;
    const docker = new Docker({ socketPath: this.cfg.socket });
    let list: Docker.ContainerInfo[];
    try {
      list = await docker.listContainers({ all, ...(label ? { filters: { label: [label] } } : {}), abortSignal: opts.signal });
    } catch (e) {
      throw new HostgateError("unavailable", `docker backend ${this.info.name}: ${(e as Error).message}`, {
        hint: `Is the engine running and is ${this.cfg.socket} readable by the daemon? (podman: podman system service)`,
      });
    }
    return list.map((c) => {
      const nets = Object.entries(c.NetworkSettings.Networks ?? {});
      const ip = nets.map(([, n]) => n.IPAddress).find((a) => a) ?? "";
      return {
        name: (c.Names[0] ?? c.Id.slice(0, 12)).replace(/^\//, ""),
        primary_ip: ip,
        provider: "docker",
        backend: this.info.name,
        meta: { id: c.Id.slice(0, 12), image: c.Image, state: c.State, status: c.Status, networks: nets.map(([n]) => n).join(",") },
        tags: [...this.cfg.tags],
      };
    });
  }
}
