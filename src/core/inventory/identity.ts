import { normaliseHost } from "./address.ts";
import type { HostRecord, MachineIdentity } from "./record.ts";

/**
 * Which machine an exec target is (issue 19, "Policies bind to machines, not names"; corpus T3-06). A host
 * reached through an ssh_config alias, an IP literal or a second inventory backend is the same machine as an
 * inventory entry when
 * - they dial the same port and their addresses meet after normalisation (address.ts) and, where the daemon
 *   resolved names, after DNS (`IdentityFacts.addresses`), or
 * - known_hosts records one key under both names (`IdentityFacts.sharesKey`; wildcard and marker lines do not
 *   count: they say which keys are accepted, not which machine holds them).
 * The machine's tags are those of its tagged entries: when every tagged entry of the group carries the same
 * tag set the target gets it (and the first tagged entry's name, provider and backend, in backend order, so
 * every name of the machine is judged as one); when they disagree the target collides and is refused, since no
 * single record says what policies should see. With no tagged entry the machine is the target itself when a
 * backend lists it, else the first entry it matched. A target no backend lists that matches no entry is
 * `literal` with no tags (policies grant literal hosts only explicitly). Pure: the caller gathers the facts.
 */

/** What the caller found out about addresses and keys (adapters: DNS, known_hosts). */
export interface IdentityFacts {
  /** Normalised addresses a dialed host name resolved to, keyed by its normalised name; absent: the name only. */
  addresses: ReadonlyMap<string, readonly string[]>;
  /** Whether known_hosts records, under (host, port), a key it also records under the target's name. */
  sharesKey: (host: string, port: number) => boolean;
}

/** The outcome: the machine, or the tagged entries that disagree about what it is. */
export type Identified = { machine: MachineIdentity } | { collision: HostRecord[] };

const same = (a: HostRecord, b: HostRecord): boolean => a.backend === b.backend && a.name === b.name;
const tagKey = (r: HostRecord): string => JSON.stringify([...new Set(r.tags)].sort());

function addressSet(host: string, facts: IdentityFacts): Set<string> {
  const n = normaliseHost(host);
  return new Set([n, ...(facts.addresses.get(n) ?? [])]);
}

/**
 * Identifies `target` (which must have an `ssh` endpoint) among `listed`: every record the backends list, in
 * backend order. `target` is listed when one of them has its backend and name.
 */
export function identify(target: HostRecord, listed: readonly HostRecord[], facts: IdentityFacts): Identified {
  const t = target.ssh!;
  const isListed = listed.some((r) => same(r, target));
  const tAddrs = addressSet(t.host, facts);
  const group: HostRecord[] = [];
  const how = new Set<"address" | "host_key">();
  for (const r of listed) {
    if (same(r, target)) {
      group.push(target);
      continue;
    }
    if (!r.ssh) continue;
    let hit = false;
    if (r.ssh.port === t.port) {
      for (const a of addressSet(r.ssh.host, facts)) {
        if (tAddrs.has(a)) {
          hit = true;
          how.add("address");
          break;
        }
      }
    }
    if (facts.sharesKey(r.ssh.host, r.ssh.port)) {
      hit = true;
      how.add("host_key");
    }
    if (hit) group.push(r);
  }
  const tagged = group.filter((r) => r.tags.length > 0);
  if (tagged.length > 0 && tagged.some((r) => tagKey(r) !== tagKey(tagged[0]!))) return { collision: tagged };
  // Untagged: the target itself when listed, else the first entry it matched (a literal that is in the inventory).
  const canonical = tagged[0] ?? (isListed ? target : group[0] ?? null);
  const others = group.filter((r) => !canonical || !same(r, canonical)).map((r) => r.name);
  return {
    machine: {
      name: canonical?.name ?? target.name,
      provider: canonical?.provider ?? target.provider,
      backend: canonical?.backend ?? "literal",
      tags: canonical ? [...new Set(canonical.tags)] : [],
      address: normaliseHost((canonical?.ssh ?? t).host),
      port: (canonical?.ssh ?? t).port,
      same_as: [...new Set(others)].filter((n) => n !== (canonical?.name ?? target.name)),
      matched_by: [...how],
    },
  };
}
