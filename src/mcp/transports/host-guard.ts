/**
 * DNS-rebinding protection for the HTTP transport: which Host and Origin header values are accepted.
 * Loopback means `localhost` (optionally with a trailing root dot), a full dotted quad in 127.0.0.0/8,
 * `[::1]`, or an IPv4-mapped loopback `[::ffff:127.x.y.z]`; nothing else (corpus M015–M020, M024).
 */

/** Splits a Host header value into hostname and port; null when it is not a syntactically valid host. */
export function parseHostHeader(value: string): { hostname: string; port: string | null } | null {
  const v = value.trim().toLowerCase();
  if (v === "" || /[\s/@?#\\]/.test(v)) return null;
  if (v.startsWith("[")) {
    const close = v.indexOf("]");
    if (close < 0) return null;
    const rest = v.slice(close + 1);
    if (rest !== "" && !validPort(rest.slice(1))) return null;
    return { hostname: v.slice(0, close + 1), port: rest === "" ? null : rest.slice(1) };
  }
  const parts = v.split(":");
  if (parts.length > 2) return null;
  if (parts.length === 2 && !validPort(parts[1]!)) return null;
  return { hostname: parts[0]!, port: parts[1] ?? null };
}

const validPort = (p: string): boolean => /^\d{1,5}$/.test(p) && Number(p) <= 65535;

const isDottedQuadLoopback = (h: string): boolean => {
  const octets = h.split(".");
  return octets.length === 4 && octets.every((o) => /^(0|[1-9]\d{0,2})$/.test(o) && Number(o) <= 255) && octets[0] === "127";
};

/** Whether a hostname (as returned by parseHostHeader) names this machine's loopback interface. */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
  if (h === "localhost") return true;
  if (isDottedQuadLoopback(h)) return true;
  if (h === "[::1]" || h === "[0:0:0:0:0:0:0:1]") return true;
  const mapped = /^\[::ffff:([\d.]+)\]$/.exec(h);
  if (mapped !== null) return isDottedQuadLoopback(mapped[1]!);
  // The same address as the WHATWG URL parser writes it (Origin hosts): [::ffff:7f00:1] is 127.0.0.1.
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(h);
}

/** Whether a bind address is loopback (then no token is required). */
export function isLoopbackBind(address: string): boolean {
  return address === "localhost" || isDottedQuadLoopback(address) || address === "::1";
}

/** Accepts a Host header when it is loopback or listed in `allowed` (names compared without port). */
export function hostAllowed(value: string | undefined, allowed: readonly string[]): boolean {
  if (value === undefined) return false;
  const parsed = parseHostHeader(value);
  if (!parsed) return false;
  return isLoopbackHostname(parsed.hostname) || allowed.map((a) => a.toLowerCase()).includes(parsed.hostname);
}

/**
 * Accepts a request's Origin: absent is fine (non-browser clients send none); present, there must be
 * exactly one, `null` only when listed, otherwise an http(s) URL whose host is loopback or listed.
 */
export function originAllowed(values: string | string[] | undefined, allowed: readonly string[]): boolean {
  if (values === undefined) return true;
  const list = Array.isArray(values) ? values : [values];
  if (list.length !== 1 || list[0]!.includes(",")) return false;
  const origin = list[0]!.trim();
  if (allowed.includes(origin)) return true;
  if (origin === "null") return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return isLoopbackHostname(url.hostname.toLowerCase());
}
