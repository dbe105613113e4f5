import { HostgateError, toHostgateError, describeIssues } from "../core/errors.ts";
import type { HostRecord } from "../core/inventory/record.ts";
import { hostMatcher, splitList } from "../core/inventory/search.ts";
import { validateSshHost } from "../core/inventory/target.ts";
import { paginate } from "../core/pagination.ts";
import { OverrideSchemas } from "../config/hosts.ts";
import type { SearchHostsInput, SearchHostsOutput } from "../ipc/hosts.ts";
import { SearchHostsInputSchema } from "../ipc/hosts.ts";
import type { BackendInfo, InventoryProvider } from "../ports/inventory-provider.ts";

/**
 * The inventory use cases: search_hosts (every selected backend listed in parallel, each bounded by its
 * timeout; a failing or hanging backend never fails or delays the search past its timeout — its error is
 * listed beside the results), list_backends, and resolving an exec target to a host record.
 */

/** A backend as the daemon composed it: the provider plus its cache settings. */
export interface Backend {
  provider: InventoryProvider;
  timeout_ms: number;
  cache_ttl_s: number;
  cache_dir: string | undefined;
}

/** The listing cache (adapters/inventory/cache.ts). */
export interface ListingCache {
  get(key: string, ttlMs: number, dir: string | undefined, now: number): HostRecord[] | null;
  set(key: string, records: HostRecord[], dir: string | undefined, now: number): string | null;
}

/** Resolves a name that no backend lists the way `ssh name` would (the ssh_config provider), or null. */
export type AliasResolver = (name: string) => HostRecord | null;

interface Listed {
  backend: Backend;
  records: HostRecord[];
  cached: boolean;
  ms: number;
  error: { code: string; message: string } | null;
}

export class Inventory {
  readonly backends: Backend[];
  /** True when no inventory is configured and the user's ssh config and known_hosts are the backends. */
  readonly defaulted: boolean;
  private readonly cache: ListingCache;
  private readonly resolveAlias: AliasResolver | null;
  private readonly now: () => number;

  constructor(opts: { backends: Backend[]; defaulted: boolean; cache: ListingCache; resolveAlias?: AliasResolver | null; now?: () => number }) {
    this.backends = opts.backends;
    this.defaulted = opts.defaulted;
    this.cache = opts.cache;
    this.resolveAlias = opts.resolveAlias ?? null;
    this.now = opts.now ?? Date.now;
  }

  /** list_backends: kind, name, hint and notes (e.g. that hashed known_hosts entries cannot be listed). */
  listBackends(): { backends: BackendInfo[]; defaulted: boolean } {
    return { backends: this.backends.map((b) => ({ ...b.provider.info, notes: [...b.provider.info.notes] })), defaulted: this.defaulted };
  }

  private overridesFor(b: Backend, all: Record<string, Record<string, unknown>>): Record<string, unknown> {
    const info = b.provider.info;
    const raw = { ...(all[info.kind] ?? {}), ...(all[info.name] ?? {}) };
    const parsed = OverrideSchemas[info.kind].safeParse(raw);
    if (!parsed.success) {
      throw new HostgateError("invalid_params", `overrides for ${info.name} (${info.kind}): ${describeIssues(parsed.error, "value")}`, {
        hint: `Overridable here: ${Object.keys(OverrideSchemas[info.kind].shape).join(", ")}. Paths and sockets are set in the config only.`,
      });
    }
    return parsed.data;
  }

  private async listOne(b: Backend, overrides: Record<string, unknown>, req: { ttl_s?: number | undefined; no_cache: boolean; refresh: boolean }): Promise<Listed> {
    const t0 = performance.now();
    const key = b.provider.cacheKey(overrides);
    const ttl = Math.min(b.cache_ttl_s, req.ttl_s ?? b.cache_ttl_s) * 1000;
    if (!req.no_cache && !req.refresh) {
      const hit = this.cache.get(key, ttl, b.cache_dir, this.now());
      if (hit) return { backend: b, records: hit, cached: true, ms: performance.now() - t0, error: null };
    }
    const timeout = (overrides.timeout_ms as number | undefined) ?? b.timeout_ms;
    const ac = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    try {
      const records = await Promise.race([
        b.provider.list({ signal: ac.signal, overrides }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            ac.abort();
            reject(new HostgateError("timeout", `backend ${b.provider.info.name} did not answer within ${timeout} ms`));
          }, timeout);
        }),
      ]);
      let error: Listed["error"] = null;
      if (!req.no_cache && b.cache_ttl_s > 0) {
        const w = this.cache.set(key, records, b.cache_dir, this.now());
        if (w) error = { code: "backend_error", message: w };
      }
      return { backend: b, records, cached: false, ms: performance.now() - t0, error };
    } catch (e) {
      const h = toHostgateError(e);
      return { backend: b, records: [], cached: false, ms: performance.now() - t0, error: { code: h.code, message: h.message } };
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  private select(providers: string[], backends: string[]): Backend[] {
    for (const n of backends) {
      if (!this.backends.some((b) => b.provider.info.name === n)) {
        throw new HostgateError("invalid_params", `no backend named ${JSON.stringify(n)}`, { hint: `Configured backends: ${this.backends.map((b) => b.provider.info.name).join(", ") || "none"} (see list_backends).` });
      }
    }
    return this.backends.filter((b) => (providers.length === 0 || providers.includes(b.provider.info.kind)) && (backends.length === 0 || backends.includes(b.provider.info.name)));
  }

  /** search_hosts. Throws `invalid_params` for bad input; backend failures are listed in `errors`. */
  async search(input: unknown): Promise<SearchHostsOutput> {
    const parsed = SearchHostsInputSchema.safeParse(input);
    if (!parsed.success) throw new HostgateError("invalid_params", `search_hosts: ${describeIssues(parsed.error, "input")}`, { hint: "See the tool's inputSchema." });
    const q: SearchHostsInput = parsed.data;
    const chosen = this.select(splitList(q.providers), splitList(q.backends));
    const overrides = q.overrides ?? {};
    for (const k of Object.keys(overrides)) {
      if (!this.backends.some((b) => b.provider.info.name === k || b.provider.info.kind === k)) {
        throw new HostgateError("invalid_params", `overrides: no backend or provider kind ${JSON.stringify(k)}`, { hint: "Key overrides by a backend name or provider kind from list_backends." });
      }
    }
    const match = hostMatcher(q);
    const listed = await Promise.all(chosen.map((b) => this.listOne(b, this.overridesFor(b, overrides), { ttl_s: q.cache_ttl, no_cache: q.no_cache ?? false, refresh: q.refresh ?? false })));
    const matched: HostRecord[] = [];
    for (const l of listed) for (const r of l.records) if (match(r)) matched.push(r);
    const page = paginate(matched, q.limit ?? 200, q.cursor, JSON.stringify([q.name, q.name_regex, q.providers, q.backends]));
    return {
      records: page.items.map((r) => ({
        name: r.name, primary_ip: r.primary_ip, provider: r.provider, backend: r.backend, meta: r.meta, tags: r.tags,
        ...(q.ssh_user && !r.ssh?.user ? { ssh_user: q.ssh_user } : r.ssh?.user ? { ssh_user: r.ssh.user } : {}),
      })),
      count: page.total,
      next_cursor: page.next_cursor,
      errors: listed.filter((l) => l.error).map((l) => ({ backend: l.backend.provider.info.name, kind: l.backend.provider.info.kind, code: l.error!.code, message: l.error!.message })),
      backends: listed.map((l) => ({ name: l.backend.provider.info.name, kind: l.backend.provider.info.kind, cached: l.cached, hosts: l.records.length, duration_ms: Math.round(l.ms * 100) / 100 })),
    };
  }

  /**
   * Finds one host by inventory name (optionally in one backend or provider kind): the first exact name match
   * in backend order. Backends that fail are skipped
   * (their errors returned). Null when nothing knows the name.
   */
  async find(name: string, provider?: string): Promise<{ record: HostRecord | null; errors: string[] }> {
    const errors: string[] = [];
    const chosen = this.backends.filter((b) => !provider || b.provider.info.kind === provider || b.provider.info.name === provider);
    if (provider && chosen.length === 0) throw new HostgateError("invalid_params", `no backend or provider kind ${JSON.stringify(provider)}`, { hint: "See list_backends." });
    const listed = await Promise.all(chosen.map((b) => this.listOne(b, {}, { no_cache: false, refresh: false })));
    for (const l of listed) {
      if (l.error) errors.push(`${l.backend.provider.info.name}: ${l.error.message}`);
      const hit = l.records.find((r) => r.name === name);
      if (hit) return { record: hit, errors };
    }
    return { record: null, errors };
  }

  /**
   * The host record an exec target names: an inventory host, else the name resolved through the ssh client
   * config the way `ssh name` would (when an ssh_config backend exists), else a literal host
   * name / IP (validated, `provider: static`, backend `literal`). Throws `invalid_target` for a bad literal.
   */
  async resolveTarget(target: string): Promise<HostRecord> {
    const { record } = await this.find(target);
    if (record) return record;
    const alias = this.resolveAlias?.(target);
    if (alias) return alias;
    const host = validateSshHost(target);
    return { name: target, primary_ip: host, provider: "static", backend: "literal", meta: {}, tags: [], ssh: { host, port: 22, identity_files: [], proxy_jump: [] } };
  }
}
