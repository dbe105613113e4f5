import { HostgateError } from "../errors.ts";
import type { InterfaceAddress } from "../../ports/host-probe.ts";

/** One entry of `ip -j address show` (iproute2's JSON), only the fields read here. */
interface IpLink {
  ifname?: unknown;
  flags?: unknown;
  operstate?: unknown;
  addr_info?: { family?: unknown; local?: unknown; prefixlen?: unknown; label?: unknown }[];
}

/** Hex groups of an IPv6 netmask of `prefix` bits, compressed as inet_ntop writes it (longest zero run ≥ 2 → `::`). */
function ipv6Netmask(prefix: number): string {
  const groups = Array.from({ length: 8 }, (_, i) => {
    const bits = Math.max(0, Math.min(16, prefix - i * 16));
    return bits === 0 ? 0 : (0xffff << (16 - bits)) & 0xffff;
  });
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.len < 2) return hex.join(":");
  return `${hex.slice(0, best.at).join(":")}::${hex.slice(best.at + best.len).join(":")}`;
}

function ipv4Netmask(prefix: number): string {
  const m = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((s) => (m >>> s) & 0xff).join(".");
}

/**
 * Turns `ip -j address show` output into the HostProbe's address map, the shape Node's `os.networkInterfaces()`
 * gives locally: keyed by the IPv4 address label (an alias such as `eth0:1`) or the interface name; only
 * interfaces that are up and running (libuv skips the others: IFF_UP and IFF_RUNNING; iproute2 hides
 * IFF_RUNNING, which the kernel sets exactly when operstate is UP or UNKNOWN); netmask written as inet_ntop does.
 * Throws `unavailable` when the text is not iproute2 JSON.
 */
export function parseIpAddressJson(text: string): Record<string, InterfaceAddress[]> {
  let links: unknown;
  try {
    links = JSON.parse(text);
  } catch {
    throw new HostgateError("unavailable", "`ip -j address show` did not print JSON.", { hint: "The host's iproute2 may be too old for -j (JSON came in 4.14)." });
  }
  if (!Array.isArray(links)) throw new HostgateError("unavailable", "`ip -j address show` printed JSON that is not a list of links.");
  const out: Record<string, InterfaceAddress[]> = {};
  for (const link of links as IpLink[]) {
    const flags = Array.isArray(link.flags) ? link.flags : [];
    if (typeof link.ifname !== "string" || !flags.includes("UP") || (link.operstate !== "UP" && link.operstate !== "UNKNOWN")) continue;
    for (const a of link.addr_info ?? []) {
      if (typeof a.local !== "string" || typeof a.prefixlen !== "number") continue;
      const v4 = a.family === "inet";
      if (!v4 && a.family !== "inet6") continue;
      const name = v4 && typeof a.label === "string" ? a.label : link.ifname;
      (out[name] ??= []).push({
        family: v4 ? "IPv4" : "IPv6",
        address: a.local,
        netmask: v4 ? ipv4Netmask(a.prefixlen) : ipv6Netmask(a.prefixlen),
        cidr: `${a.local}/${a.prefixlen}`,
      });
    }
  }
  return out;
}
