import { HostgateError } from "../core/errors.ts";
import type { ResourceContents, ResourceEntry, ResourceTemplateEntry } from "../ipc/protocol.ts";

/**
 * The resources of one URI scheme (`systemd://` today; `skill://` and host resources next). `list` returns
 * concrete resources, `templates` the URI templates, `read` one resource of this scheme. Errors are
 * HostgateError: `invalid_uri` (malformed for this scheme, mapped to -32602), `not_found` or a
 * scheme-specific code such as `no_such_unit` (both mapped to -32602 with data `{ uri }`: SEP-2164), anything else -32603.
 */
export interface ResourceProvider {
  /** Lowercase scheme without `://`, e.g. `systemd`. */
  readonly scheme: string;
  list(): Promise<ResourceEntry[]>;
  templates(): readonly ResourceTemplateEntry[];
  read(uri: string): Promise<ResourceContents>;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//;

/**
 * Resource providers keyed by URI scheme. `list` and `templates` concatenate the providers in
 * registration order; `read` dispatches on the URI's scheme (unknown scheme: `invalid_uri` naming the known ones).
 */
export class ResourceRegistry {
  private readonly providers = new Map<string, ResourceProvider>();

  /** Adds a provider; throws when its scheme is malformed or already taken. */
  register(provider: ResourceProvider): void {
    if (!/^[a-z][a-z0-9+.-]*$/.test(provider.scheme)) throw new Error(`resource scheme ${JSON.stringify(provider.scheme)} is not a URI scheme`);
    if (this.providers.has(provider.scheme)) throw new Error(`resource scheme ${provider.scheme}:// is already registered`);
    this.providers.set(provider.scheme, provider);
  }

  schemes(): string[] {
    return [...this.providers.keys()];
  }

  async list(): Promise<ResourceEntry[]> {
    const out: ResourceEntry[] = [];
    for (const p of this.providers.values()) out.push(...(await p.list()));
    return out;
  }

  templates(): ResourceTemplateEntry[] {
    return [...this.providers.values()].flatMap((p) => [...p.templates()]);
  }

  read(uri: string): Promise<ResourceContents> {
    const scheme = SCHEME.exec(uri)?.[1];
    const provider = scheme === undefined ? undefined : this.providers.get(scheme);
    if (!provider) {
      throw new HostgateError("invalid_uri", `${JSON.stringify(uri.slice(0, 200))} is not a resource this daemon serves.`, { hint: `Known schemes: ${this.schemes().map((s) => `${s}://`).join(", ")}. resources/templates/list shows the URI forms.` });
    }
    return provider.read(uri);
  }
}
