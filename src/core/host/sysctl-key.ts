/**
 * A sysctl key as hostgate accepts it: 2 to 8 dotted words of letters, digits, `_` and `-` (e.g.
 * net.ipv4.ip_forward; an interface name with a dot is written with `/` by sysctl(8) and is not accepted here).
 * Maps to /proc/sys/<words joined by `/`>, so no word can be `..` or empty.
 */
export const SYSCTL_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){1,7}$/;

/** `net.ipv4.ip_forward` → `/proc/sys/net/ipv4/ip_forward` (the key must match {@link SYSCTL_KEY}). */
export function procSysPath(key: string): string {
  return `/proc/sys/${key.replaceAll(".", "/")}`;
}
