/** One socket row of /proc/net/{tcp,tcp6,udp,udp6}. */
export interface SocketRow {
  address: string;
  port: number;
  /** Kernel TCP state number (proc(5); 0x0A = LISTEN, 0x07 = CLOSE, used by unconnected UDP). */
  state: number;
  uid: number;
  inode: number;
}

/** Kernel TCP state for a listening TCP socket (include/net/tcp_states.h: TCP_LISTEN = 10). */
export const TCP_LISTEN = 0x0a;
/** State of an unconnected (bound, "listening") UDP socket (TCP_CLOSE = 7). */
export const UDP_UNCONNECTED = 0x07;

/**
 * Decodes the hex address the kernel prints: IPv4 as one little-endian 32-bit word, IPv6 as four
 * 32-bit words each in host (little-endian) byte order. Returns the textual address (IPv6 compressed).
 */
export function decodeProcAddress(hexText: string): string {
  const hex = hexText.toLowerCase(); // the kernel prints %08X (upper case); the v4-mapped check below compares "ffff"
  if (hex.length === 8) {
    const bytes = [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16));
    return bytes.join(".");
  }
  const groups: string[] = [];
  for (let w = 0; w < 4; w++) {
    const word = hex.slice(w * 8, w * 8 + 8);
    const b = [6, 4, 2, 0].map((i) => word.slice(i, i + 2));
    groups.push(b[0]! + b[1]!, b[2]! + b[3]!);
  }
  const mapped = groups.slice(0, 5).every((g) => g === "0000") && groups[5] === "ffff";
  if (mapped) {
    const v4 = [groups[6]!, groups[7]!].flatMap((g) => [parseInt(g.slice(0, 2), 16), parseInt(g.slice(2), 16)]);
    return `::ffff:${v4.join(".")}`;
  }
  return compressIpv6(groups.map((g) => parseInt(g, 16).toString(16)));
}

function compressIpv6(groups: string[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== "0") { i++; continue; }
    let j = i;
    while (j < groups.length && groups[j] === "0") j++;
    if (j - i > bestLen && j - i > 1) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  if (bestStart < 0) return groups.join(":");
  return `${groups.slice(0, bestStart).join(":")}::${groups.slice(bestStart + bestLen).join(":")}`;
}

/** Parses the rows of a /proc/net/{tcp,udp}[6] table (header line skipped, malformed rows skipped). */
export function parseSocketTable(text: string): SocketRow[] {
  const rows: SocketRow[] = [];
  for (const line of text.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const [addr, port] = f[1]!.split(":");
    if (addr === undefined || port === undefined) continue;
    rows.push({ address: decodeProcAddress(addr), port: parseInt(port, 16), state: parseInt(f[3]!, 16), uid: Number(f[7]), inode: Number(f[9]) });
  }
  return rows;
}
