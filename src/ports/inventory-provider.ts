/**
 * The InventoryProvider port: one configured backend that lists hosts. Implemented by
 * adapters/inventory/{static,ssh-config,known-hosts,docker}.ts. A listing may be slow or fail; the search use
 * case bounds it with the backend's timeout and reports its error beside the other backends' results.
 */
import type { HostRecord, ProviderKind } from "../core/inventory/record.ts";

/** What `list_backends` shows for one backend. `hint` is a short locator (file, socket); `notes` limitations. */
export interface BackendInfo {
  kind: ProviderKind;
  name: string;
  hint: string;
  notes: string[];
}

/** Per-request options: `overrides` are this backend's fields from `search_hosts { overrides }` (already validated). */
export interface ListOptions {
  signal: AbortSignal;
  overrides: Readonly<Record<string, unknown>>;
}

export interface InventoryProvider {
  readonly info: BackendInfo;
  /** Settings that shape a listing (after overrides): part of the cache key. */
  cacheKey(overrides: Readonly<Record<string, unknown>>): string;
  /** Lists every host. Rejects with HostgateError `backend_error` / `unavailable` / `timeout` saying why. */
  list(opts: ListOptions): Promise<HostRecord[]>;
}
