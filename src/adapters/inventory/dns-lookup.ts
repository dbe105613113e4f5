import { lookup } from "node:dns/promises";

/**
 * The addresses a host name resolves to, as ssh would reach it (`getaddrinfo` through Node's `dns.lookup`:
 * /etc/hosts, then DNS), for machine identity (core/inventory/identity.ts). Answers are kept `ttl_ms`
 * (failures too, so a dead resolver is asked once per ttl); a lookup slower than `timeout_ms` counts as no
 * answer. Never throws: an unknown name resolves to `[]`, and identity then compares the name itself.
 */
export function dnsLookup(opts: { timeout_ms: number; ttl_ms: number; now?: () => number }): (name: string) => Promise<string[]> {
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { at: number; addresses: Promise<string[]> }>();
  return (name) => {
    const hit = cache.get(name);
    if (hit && now() - hit.at < opts.ttl_ms) return hit.addresses;
    let timer: NodeJS.Timeout | undefined;
    const addresses = Promise.race([
      lookup(name, { all: true, verbatim: true }).then((r) => r.map((a) => a.address), () => []),
      new Promise<string[]>((resolve) => { timer = setTimeout(() => { resolve([]); }, opts.timeout_ms); }),
    ]).finally(() => { clearTimeout(timer); });
    if (cache.size > 10_000) cache.clear();
    cache.set(name, { at: now(), addresses });
    return addresses;
  };
}
