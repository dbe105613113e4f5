import { HostgateError, toHostgateError, describeIssues } from "../core/errors.ts";
import { isIpLiteral, normaliseHost } from "../core/inventory/address.ts";
import { identify } from "../core/inventory/identity.ts";
import type { HostRecord } from "../core/inventory/record.ts";
import { hostMatcher, splitList } from "../core/inventory/search.ts";
import { validateSshHost, validateSshPort } from "../core/inventory/target.ts";
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

/**
 * Where target resolution learns which inventory entry a target is the same machine as (core/inventory/
 * identity.ts). Both optional: without them only normalised address strings and ports are compared.
 */
export interface IdentitySources {
  /** DNS: the addresses a host name resolves to ([] when unknown; never throws). */
  lookup?: (name: string) => Promise<string[]>;
  /** known_hosts: for a target (host, port), a test of whether another (host, port) is recorded with one of its keys. */
  keyTwins?: (host: string, port: number) => (host: string, port: number) => boolean;
}

interface Listed {
  backend: Backend;
  records: HostRecord[];
  cached: boolean;
  ms: number;
  error: { code: string; message: string } | null;
  /** True when the listing itself failed (`records` is empty); false for a listing with a cache warning. */
  failed: boolean;
}

export class Inventory {
  readonly backends: Backend[];
  /** True when no inventory is configured and the user's ssh config and known_hosts are the backends. */
  readonly defaulted: boolean;
  private readonly cache: ListingCache;
  private readonly resolveAlias: AliasResolver | null;
  private readonly identity: IdentitySources;
  private readonly now: () => number;

  constructor(opts: { backends: Backend[]; defaulted: boolean; cache: ListingCache; resolveAlias?: AliasResolver | null; identity?: IdentitySources; now?: () => number }) {
    this.backends = opts.backends;
    this.defaulted = opts.defaulted;
    this.cache = opts.cache;
    this.resolveAlias = opts.resolveAlias ?? null;
    this.identity = opts.identity ?? {};
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
      if (hit) return { backend: b, records: hit, cached: true, ms: performance.now() - t0, error: null, failed: false };
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
      return { backend: b, records, cached: false, ms: performance.now() - t0, error, failed: false };
    } catch (e) {
      const h = toHostgateError(e);
      return { backend: b, records: [], cached: false, ms: performance.now() - t0, error: { code: h.code, message: h.message }, failed: true };
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
    const page = paginate(matched, q.limit ?? 200, q.cursor, JSON.stringify([q.name, q.name_regex, q.tags, q.providers, q.backends]));
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
   * The host record an exec target names, with the machine policies judge (`machine`, and `tags` set to the
   * machine's): an inventory host, else the name resolved through the ssh client config the way `ssh name`
   * would (when an ssh_config backend exists), else a literal host name / IP. A name no backend lists is
   * `literal` (no tags) unless it is the same machine as an inventory entry (core/inventory/identity.ts).
   * A numeric IPv4 spelling is dialed as its dotted quad.
   * Throws `invalid_target` for a bad host or port, `ssh_config_error` for a host the ssh config says to reach
   * in a way hostgate does not (ProxyCommand) or that it cannot read, `host_collision` when tagged entries
   * that are this machine disagree on its tags, `unavailable` when a backend that lists SSH hosts failed (it
   * might hold this machine under another name).
   */
  async resolveTarget(target: string): Promise<HostRecord> {
    const { all, failed } = await this.listAll();
    let record = all.find((r) => r.name === target) ?? null;
    if (!record) {
      const alias = this.resolveAlias?.(target);
      record = alias ? { ...alias, tags: [] } : null;
    }
    if (!record) {
      const host = validateSshHost(target);
      record = { name: target, primary_ip: host, provider: "static", backend: "literal", meta: {}, tags: [], ssh: { host, port: 22, identity_files: [], proxy_jump: [] } };
    }
    return this.identifyIn(record, all, failed);
  }

  /**
   * The machine a listed record is (get_host_details): the same checks and errors as {@link resolveTarget}
   * for that record.
   */
  async identifyRecord(record: HostRecord): Promise<HostRecord> {
    const { all, failed } = await this.listAll();
    return this.identifyIn(record, all, failed);
  }

  /** Every backend's listing (cached as search_hosts caches), and the failures that could hide an SSH host. */
  private async listAll(): Promise<{ all: HostRecord[]; failed: Listed[] }> {
    const listed = await Promise.all(this.backends.map((b) => this.listOne(b, {}, { no_cache: false, refresh: false })));
    // Containers are not SSH targets: a docker backend that fails cannot hide another name of an SSH host.
    return { all: listed.flatMap((l) => l.records), failed: listed.filter((l) => l.failed && l.backend.provider.info.kind !== "docker") };
  }

  private async identifyIn(record: HostRecord, all: readonly HostRecord[], failed: readonly Listed[]): Promise<HostRecord> {
    const target = record.name;
    const ssh = record.ssh;
    if (!ssh) return record;
    if (ssh.refusal) throw new HostgateError("ssh_config_error", ssh.refusal.message, { hint: ssh.refusal.hint, details: { host: record.name, backend: record.backend } });
    const dialed = { ...ssh, host: validateSshHost(ssh.host), port: validateSshPort(ssh.port) };
    const self = { ...record, ssh: dialed };
    if (failed.length > 0) {
      throw new HostgateError("unavailable", `cannot tell which machine ${target} is: ${failed.map((l) => `backend ${l.backend.provider.info.name} failed (${l.error!.message})`).join("; ")}`, {
        hint: "A backend that lists SSH hosts might hold this machine under another name with tags policies rely on; fix that backend (list_backends, search_hosts show its error).",
      });
    }
    const found = identify(self, all, await this.facts(self, all));
    if ("collision" in found) {
      const names = found.collision.map((r) => `${r.name} (${r.backend}: ${r.tags.join(",")})`);
      throw new HostgateError("host_collision", `${target} is the same machine as inventory hosts whose tags disagree: ${names.join("; ")}`, {
        hint: "Give every inventory entry of one machine the same tags (or remove the duplicate entries); policies must see one set of tags per machine.",
        details: { host: target, address: normaliseHost(dialed.host), port: dialed.port, entries: found.collision.map((r) => ({ name: r.name, backend: r.backend, tags: r.tags })) },
      });
    }
    return { ...self, tags: found.machine.tags, machine: found.machine };
  }

  /**
   * The ProxyJump hops of a resolved record, each resolved like a target (an alias's HostName, port, user and
   * keys; a hop the ssh config refuses throws as resolveTarget does). Elements are `[user@]host[:port]`.
   */
  async jumpsFor(record: HostRecord): Promise<{ host: string; port: number; user?: string | undefined; identity_files?: string[] | undefined }[]> {
    return Promise.all((record.ssh?.proxy_jump ?? []).map(async (spec) => {
      const m = /^(?:([^@]+)@)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(spec);
      if (!m) throw new HostgateError("invalid_target", `ProxyJump element ${JSON.stringify(spec)} is not [user@]host[:port]`, { hint: "Fix the ProxyJump line in the ssh config." });
      const rec = await this.resolveTarget(m[2]!);
      return { host: rec.ssh?.host ?? m[2]!, port: m[3] ? Number(m[3]) : rec.ssh?.port ?? 22, user: m[1] ?? rec.ssh?.user, identity_files: rec.ssh?.identity_files };
    }));
  }

  /** DNS answers for the target and the tagged entries (the only ones that can change the outcome), and the key test. */
  private async facts(target: HostRecord, all: readonly HostRecord[]): Promise<{ addresses: Map<string, string[]>; sharesKey: (h: string, p: number) => boolean }> {
    const addresses = new Map<string, string[]>();
    const lookup = this.identity.lookup;
    if (lookup) {
      const names = new Set<string>();
      for (const r of [target, ...all.filter((x) => x.tags.length > 0)]) {
        const h = r.ssh ? normaliseHost(r.ssh.host) : "";
        if (h && !isIpLiteral(h)) names.add(h);
      }
      await Promise.all([...names].map(async (n) => {
        addresses.set(n, (await lookup(n)).map(normaliseHost));
      }));
    }
    const twins = this.identity.keyTwins?.(target.ssh!.host, target.ssh!.port);
    return { addresses, sharesKey: twins ?? (() => false) };
  }
}