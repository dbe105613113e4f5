/**
 * Parsers for the kernel's routing tables as files: /proc/net/route (IPv4, the main table only) and
 * /proc/net/ipv6_route (IPv6, every table). Field layouts: linux net/ipv4/fib_trie.c `fib_route_seq_show` and
 * net/ipv6/route.c `rt6_info_route`; flag bits from include/uapi/linux/route.h and ipv6_route.h.
 */

/** One route as `ip -j route` would name it. `destination` is always a CIDR (`0.0.0.0/0` for the default). */
export interface Route {
  family: "IPv4" | "IPv6";
  destination: string;
  gateway: string | null;
  dev: string;
  metric: number;
  /** `unicast`, or for IPv6 `local` (RTF_LOCAL: the host's own addresses) and `multicast` (ff00::/8). */
  type: "unicast" | "local" | "multicast";
}

const RTF_UP = 0x1;
const RTF_REJECT = 0x200;
const RTF_LOCAL = 0x80000000;

/** `0102000A` (little-endian hex as /proc/net/route prints it) → `10.0.2.1`. */
function ipv4OfHex(hex: string): string {
  const n = Number.parseInt(hex, 16);
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff].join(".");
}

/** Prefix length of a contiguous netmask given as little-endian hex. */
function prefixOfMask(hex: string): number {
  let n = Number.parseInt(hex, 16) >>> 0;
  let bits = 0;
  while (n !== 0) {
    bits += n & 1;
    n >>>= 1;
  }
  return bits;
}

/** 32 hex digits → the compressed RFC 5952 text form (`fd00::1`). */
export function ipv6OfHex(hex: string): string {
  const groups = (hex.match(/.{4}/g) ?? []).map((g) => Number.parseInt(g, 16).toString(16));
  // the longest run of two or more zero groups becomes `::` (the first one on a tie)
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < groups.length;) {
    if (groups[i] !== "0") { i++; continue; }
    let j = i;
    while (j < groups.length && groups[j] === "0") j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  if (best < 0) return groups.join(":");
  return `${groups.slice(0, best).join(":")}::${groups.slice(best + bestLen).join(":")}`;
}

/** Parses /proc/net/route: routes that are up, header skipped. Malformed lines are skipped. */
export function parseProcNetRoute(text: string): Route[] {
  const out: Route[] = [];
  for (const line of text.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8) continue;
    const [dev, dst, gw, flagsHex, , , metric, mask] = f as [string, string, string, string, string, string, string, string];
    const flags = Number.parseInt(flagsHex, 16);
    if (!(flags & RTF_UP)) continue;
    const gateway = ipv4OfHex(gw);
    out.push({ family: "IPv4", destination: `${ipv4OfHex(dst)}/${prefixOfMask(mask)}`, gateway: gateway === "0.0.0.0" ? null : gateway, dev, metric: Number(metric), type: "unicast" });
  }
  return out;
}

/**
 * Parses /proc/net/ipv6_route. The kernel's placeholder reject route (`::/0` on lo, metric 0xffffffff, which
 * `ip -6 route` does not show either) is left out.
 */
export function parseProcNetIpv6Route(text: string): Route[] {
  const out: Route[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const [dst, plen, , , nexthop, metricHex, , , flagsHex, dev] = f as [string, string, string, string, string, string, string, string, string, string];
    const flags = Number.parseInt(flagsHex, 16) >>> 0;
    const metric = Number.parseInt(metricHex, 16) >>> 0;
    if (flags & RTF_REJECT && metric === 0xffffffff) continue;
    const destination = `${ipv6OfHex(dst)}/${Number.parseInt(plen, 16)}`;
    const gateway = /^0+$/.test(nexthop) ? null : ipv6OfHex(nexthop);
    const type = (flags & RTF_LOCAL) !== 0 ? "local" : dst.startsWith("ff") ? "multicast" : "unicast";
    out.push({ family: "IPv6", destination, gateway, dev, metric, type });
  }
  return out;
}
