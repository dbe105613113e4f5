import type { ActionContext } from "../core/catalogue/action.ts";
import { HostgateError } from "../core/errors.ts";
import { HOST_ID_PATTERN, HOST_NAME_RULE, LOCAL_HOST } from "../core/host-id.ts";
import type { HostRecord } from "../core/inventory/record.ts";

/** One host the daemon can act on: its id, its own name, and the ports its actions run through. */
export interface HostEntry {
  id: string;
  /** The host's own name (uname nodename), shown in provenance. */
  hostname: string;
  ctx: ActionContext;
  /** True when its systemd backend is the in-memory mock (results say `simulated`). */
  simulated_systemd: boolean;
  /** For an inventory host: the record it was resolved to (with the machine policies judge). Absent for `local`. */
  record?: HostRecord;
}

/**
 * A context built for one inventory host: `ctx` declares its `capabilities` (core/catalogue/needs.ts),
 * `hostname` is the host's own name, `close` releases what it holds (its connection stays pooled).
 */
export interface RemoteContext {
  ctx: ActionContext;
  hostname: string;
  simulated_systemd?: boolean;
  close?: () => void;
  /**
   * For a context built in part (an exec-only fallback: the host was reached but its typed ports could not be
   * built): milliseconds after which the registry drops it, so a host that comes back gets its full context.
   * Absent: kept until the inventory entry changes.
   */
  retry_after_ms?: number;
}

/**
 * Builds the context of one inventory host on first use (the SSH host probe, unit manager and mutator over
 * one pooled connection). Throws HostgateError (`unreachable`, `host_key_mismatch`, …) when the host cannot
 * be reached; the registry caches nothing then.
 */
export type RemoteContextFactory = (record: HostRecord, signal?: AbortSignal) => Promise<RemoteContext>;

/**
 * Where inventory hosts come from: `resolve` is exec_on_host's resolution (search_hosts names, ssh_config
 * aliases, machine identity; its errors: `invalid_target`, `ssh_config_error`, `host_collision`,
 * `unavailable`), `build` the factory.
 */
export interface RemoteSource {
  resolve(name: string): Promise<HostRecord>;
  build: RemoteContextFactory;
}

/** Error codes that mean the host's key is not the one known: its cached context is dropped. */
const KEY_CODES = new Set(["host_key_mismatch", "host_key_unknown"]);

interface Cached {
  generation: string;
  entry: Promise<HostEntry>;
  /** The entry once built (for doctor and describe, which never build one). */
  built?: HostEntry;
  /** When a partial context is dropped (the registry's clock, ms); absent: kept by generation. */
  expires?: number;
  close?: (() => void) | undefined;
}

/**
 * The inventory generation of a resolved record: everything its context depends on (how it is dialed, which
 * machine it is, its tags). An inventory change that touches any of it is a new generation: the cached
 * context is dropped and a fresh one built.
 */
export function generationOf(r: HostRecord): string {
  return JSON.stringify([r.provider, r.backend, r.primary_ip, r.ssh ?? null, r.tags, r.machine ?? null]);
}

/**
 * The daemon's hosts: host id → action context. `local` is registered at start; every other id is an
 * inventory name resolved through the {@link RemoteSource} (the hosts feature, loaded on first use) and
 * its context built on first use, cached by inventory generation (see {@link generationOf}; a partial
 * context only until its `retry_after_ms` has passed), dropped when the name no longer resolves (the host left the inventory) or when a call finds its host key changed.
 * Ids that resolve to nothing fail with `unknown_host`, never fall back to local.
 */
export class HostRegistry {
  private readonly hosts = new Map<string, HostEntry>();
  private readonly cache = new Map<string, Cached>();

  /**
   * `remote`: the source of inventory hosts (absent: only registered hosts exist); `now`: the clock partial
   * contexts expire by (milliseconds; the daemon's clock, a fake one in tests).
   */
  constructor(private remote: (() => Promise<RemoteSource>) | null = null, private readonly now: () => number = Date.now) {}

  /** Sets the source of inventory hosts (the composition root, once the hosts feature is wired). */
  setRemote(remote: () => Promise<RemoteSource>): void {
    this.remote = remote;
  }

  /** Adds a host. Throws `invalid_params` for a malformed id and `host_exists` when the id is taken (unregister first). */
  register(entry: HostEntry): void {
    if (!HOST_ID_PATTERN.test(entry.id)) throw new HostgateError("invalid_params", `${JSON.stringify(entry.id)} is not a host id.`, { hint: `Use a valid name: ${HOST_NAME_RULE}.` });
    if (this.hosts.has(entry.id)) throw new HostgateError("host_exists", `Host ${entry.id} is already registered.`);
    this.hosts.set(entry.id, entry);
  }

  /** Removes a host (not `local`); returns whether it was there. */
  unregister(id: string): boolean {
    if (id === LOCAL_HOST) throw new HostgateError("invalid_params", "The local host cannot be unregistered.");
    return this.hosts.delete(id);
  }

  /** A registered entry (default `local`), synchronously. Throws HostgateError `unknown_host`. */
  get(id: string = LOCAL_HOST): HostEntry {
    const entry = this.hosts.get(id);
    if (!entry) throw this.unknown(id);
    return entry;
  }

  has(id: string): boolean {
    return this.hosts.has(id);
  }

  /** Registered ids, sorted. */
  ids(): string[] {
    return [...this.hosts.keys()].sort();
  }

  /** Inventory hosts with a cached context, sorted. */
  cached(): string[] {
    return [...this.cache.keys()].sort();
  }

  /** Inventory hosts whose context is built (not being built, not failed), sorted by id. Dials nothing. */
  built(): HostEntry[] {
    return [...this.cache.values()].flatMap((c) => (c.built ? [c.built] : [])).sort((a, b) => a.id.localeCompare(b.id));
  }

  /**
   * The entry for `id`: a registered host, else an inventory host whose context is built on first use and
   * cached by generation. `gate` sees the resolved record before any context is built or reused (the read
   * policy: a host the caller may not read is never dialed). Throws `invalid_params` (not a host id),
   * `unknown_host` (nothing resolves it; the hint says how to find hosts), the gate's error, or the factory's
   * error (nothing cached then).
   */
  async resolve(id: string = LOCAL_HOST, signal?: AbortSignal, gate?: (record: HostRecord) => Promise<void>): Promise<HostEntry> {
    const registered = this.hosts.get(id);
    if (registered) return registered;
    if (!HOST_ID_PATTERN.test(id)) throw new HostgateError("invalid_params", `${JSON.stringify(id)} is not a host name.`, { hint: `Use an inventory name from search_hosts; ${HOST_NAME_RULE}.` });
    if (!this.remote) throw this.unknown(id);
    const source = await this.remote();
    let record: HostRecord;
    try {
      record = await source.resolve(id);
    } catch (err) {
      // The name no longer resolves: the host left the inventory; its context goes with it.
      this.forget(id);
      const e = err instanceof HostgateError ? err : null;
      if (e && e.code !== "invalid_target") throw e;
      throw this.unknown(id, e?.message);
    }
    const generation = generationOf(record);
    const old = this.cache.get(id);
    if (old && (old.generation !== generation || (old.expires !== undefined && this.now() >= old.expires))) this.forget(id);
    if (gate) await gate(record);
    const cached = this.cache.get(id);
    if (cached?.generation === generation) return cached.entry;
    this.forget(id);
    const slot: Cached = { generation, entry: Promise.resolve(null as never) };
    slot.entry = source.build(record, signal).then((rc) => {
      slot.close = rc.close;
      if (rc.retry_after_ms !== undefined) slot.expires = this.now() + rc.retry_after_ms;
      slot.built = { id, hostname: rc.hostname, ctx: rc.ctx, simulated_systemd: rc.simulated_systemd ?? false, record };
      return slot.built;
    });
    this.cache.set(id, slot);
    slot.entry.catch(() => { if (this.cache.get(id) === slot) this.cache.delete(id); });
    return slot.entry;
  }

  /** Drops the cached context of `id` (closing it); returns whether there was one. */
  forget(id: string): boolean {
    const c = this.cache.get(id);
    if (!c) return false;
    this.cache.delete(id);
    c.close?.();
    return true;
  }

  /**
   * What a call on `id` failed with, after the registry's own reaction: a host-key error drops the cached
   * context (the next call builds a fresh one, which checks the key again) and says so.
   */
  failed(id: string, err: unknown): unknown {
    if (!(err instanceof HostgateError) || !KEY_CODES.has(err.code) || !this.forget(id)) return err;
    return new HostgateError(err.code, `${err.message} (the host's key is not the one its cached context was built with; that context was dropped)`, {
      hint: `${err.hint ? `${err.hint} ` : ""}The next call on ${id} connects afresh and checks the key again: fix known_hosts if the new key is legitimate.`,
      ...(err.details ? { details: err.details } : {}),
    });
  }

  /** Drops every cached context (daemon close). */
  close(): void {
    for (const id of [...this.cache.keys()]) this.forget(id);
  }

  private unknown(id: string, why?: string): HostgateError {
    return new HostgateError("unknown_host", `No host named ${JSON.stringify(id)} is known to this daemon${why ? `: ${why}` : "."}`, {
      hint: `Known here: ${this.ids().join(", ")}. A host is \`local\` or an inventory name: search_hosts lists them (an ssh_config alias or an address of an inventory machine also resolves); list_backends shows where the inventory comes from.`,
      details: { host: id, registered: this.ids() },
    });
  }
}

/** A host entry for `ctx` (default: the local host), for tests, benches and the composition root. */
export function hostEntry(ctx: ActionContext, hostname: string, id: string = LOCAL_HOST, simulatedSystemd = false): HostEntry {
  return { id, hostname, ctx, simulated_systemd: simulatedSystemd };
}
