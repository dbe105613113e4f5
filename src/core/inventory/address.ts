/**
 * Host address normalisation (pure), so that every spelling of one address reaches policy as one string.
 *
 * IPv4: the C library's `inet_aton(3)` — which `getaddrinfo(3)`, and so ssh and Node's `dns.lookup`, apply
 * before any DNS query — accepts one to four parts, each decimal, octal (leading `0`) or hex (`0x`), the last
 * part filling the remaining bytes: `127.1`, `2130706433`, `0x7f000001` and `0177.0.0.1` all dial 127.0.0.1.
 * `parseInetAton` follows that grammar (glibc inet_addr.c); `normaliseHost` turns such forms into the dotted
 * quad. IPv6: lower case, leading zeros dropped, the longest run of two or more zero groups written `::`
 * (RFC 5952 §4), a scope id kept; an IPv4-mapped address (`::ffff:a.b.c.d`) becomes its IPv4 address. Host
 * names: lower case without a trailing dot (DNS is case-insensitive).
 */

const PART = /^(?:0[xX][0-9A-Fa-f]*|0[0-7]*|[1-9][0-9]*)$/;

function partValue(p: string): number | null {
  if (!PART.test(p)) return null;
  if (/^0[xX]/.test(p)) return p.length === 2 ? 0 : parseInt(p.slice(2), 16);
  if (p.length > 1 && p.startsWith("0")) return parseInt(p.slice(1), 8);
  return parseInt(p, 10);
}

/**
 * The dotted quad `inet_aton` would make of `s`, or null when `s` is not a numeric IPv4 form. Parts beyond
 * their byte range (`256.1.1.1`, `1.2.3.256`, `4294967296`) are not addresses: null.
 */
export function parseInetAton(s: string): string | null {
  if (s.length === 0 || s.length > 64) return null;
  const parts = s.split(".");
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const p of parts) {
    const v = partValue(p);
    if (v === null || !Number.isFinite(v)) return null;
    values.push(v);
  }
  const last = values.pop()!;
  for (const v of values) if (v > 255) return null;
  if (last >= 2 ** (8 * (4 - values.length))) return null;
  const bytes = [...values];
  for (let i = 4 - values.length - 1; i >= 0; i--) bytes.push(Math.floor(last / 2 ** (8 * i)) % 256);
  return bytes.join(".");
}

/** The 8 groups of an IPv6 literal (with an optional embedded IPv4 tail), or null. */
function ipv6Groups(s: string): number[] | null {
  let head = s;
  let tail: number[] = [];
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const q = v4[2]!.split(".").map(Number);
    if (q.some((n, i) => n > 255 || String(n) !== v4[2]!.split(".")[i])) return null;
    tail = [q[0]! * 256 + q[1]!, q[2]! * 256 + q[3]!];
    head = v4[1]!.endsWith("::") ? v4[1]! : v4[1]!.slice(0, -1);
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const parse = (h: string): number[] | null => {
    if (h === "") return [];
    const out: number[] = [];
    for (const g of h.split(":")) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if (!left || !right) return null;
  const known = left.length + right.length + tail.length;
  if (halves.length === 2) {
    if (known > 7) return null;
    return [...left, ...new Array<number>(8 - known).fill(0), ...right, ...tail];
  }
  return known === 8 ? [...left, ...tail] : null;
}

/** RFC 5952 text of 8 groups: lower case, no leading zeros, the longest (first) run of ≥ 2 zero groups as `::`. */
function ipv6Text(g: number[]): string {
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

/**
 * One spelling per address: numeric IPv4 forms → dotted quad, IPv6 → RFC 5952 (IPv4-mapped → IPv4), names →
 * lower case without a trailing dot. Brackets around an IPv6 literal are removed. Never throws: a string that
 * is none of these comes back lower-cased (validation is `validateSshHost`'s job).
 */
export function normaliseHost(host: string): string {
  const known = normalised.get(host);
  if (known !== undefined) return known;
  const n = normaliseUncached(host);
  if (normalised.size >= NORMALISED_MAX) normalised.clear();
  normalised.set(host, n);
  return n;
}

/**
 * Answers of normaliseHost by input (a pure function: memoised). Resolving a host compares it with every
 * inventory entry, so a fan-out to n hosts normalises n² addresses (issue 20: ≈ 3 % of a 20-host read's CPU).
 */
const normalised = new Map<string, string>();
const NORMALISED_MAX = 4096;

function normaliseUncached(host: string): string {
  let h = host.trim();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  const v4 = parseInetAton(h);
  if (v4) return v4;
  if (h.includes(":")) {
    const pct = h.indexOf("%");
    const addr = pct >= 0 ? h.slice(0, pct) : h;
    const scope = pct >= 0 ? h.slice(pct) : "";
    const g = ipv6Groups(addr);
    if (g) {
      if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff && scope === "") return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
      return `${ipv6Text(g)}${scope}`;
    }
  }
  const lower = h.toLowerCase();
  return lower.endsWith(".") && lower.length > 1 ? lower.slice(0, -1) : lower;
}

/** Whether `host` (after normalisation) is an IP literal rather than a name that DNS would resolve. */
export function isIpLiteral(host: string): boolean {
  const n = normaliseHost(host);
  return parseInetAton(n) === n || (n.includes(":") && ipv6Groups(n.split("%")[0]!) !== null);
}
