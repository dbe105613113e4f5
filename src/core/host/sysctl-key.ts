import { HostgateError } from "../errors.ts";

/**
 * A sysctl key one can SET: 2 to 8 dotted words of letters, digits, `_` and `-` (e.g. net.ipv4.ip_forward). No `/`
 * (sysctl(8)'s spelling of a dot inside a name): SetSysctl also names its drop-in file after the key. Used as the
 * pattern of SetSysctl's `key` schema; every check goes through {@link sysctlKeyPath}.
 */
export const SYSCTL_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){1,7}$/;

/**
 * A key or subtree one can READ (GetSysctl): dotted words, where `/` stands for a dot inside a name as sysctl(8)
 * writes it (net.ipv4.conf.eth0/1.rp_filter), later words may hold `:` and `@`, and a trailing `.` names a subtree
 * (vm.). A word `.` or `..` is refused below.
 */
const READ_KEY = /^[A-Za-z0-9_-]+([./][A-Za-z0-9_:@-]+)*\.?$/;

/**
 * THE sysctl key check (GetSysctl, SetSysctl and both HostMutators' writeSysctl): `key` → its /proc/sys path
 * (`net.ipv4.conf.eth0/1.rp_filter` → /proc/sys/net/ipv4/conf/eth0.1/rp_filter; a trailing dot dropped).
 * `use: "write"`: one key of {@link SYSCTL_KEY}'s form; `"read"`: also a subtree and sysctl(8)'s `/` spelling.
 * Throws HostgateError `invalid_params` saying what a key looks like; nothing can climb out of /proc/sys.
 */
export function sysctlKeyPath(key: string, use: "read" | "write"): string {
  const words = key.replace(/\.$/, "").split(".");
  const ok = use === "write" ? SYSCTL_KEY.test(key) : READ_KEY.test(key) && !words.some((w) => w.split("/").some((p) => p === "" || p === "." || p === ".."));
  if (!ok) {
    throw new HostgateError("invalid_params", `${JSON.stringify(key)} is not a sysctl key${use === "read" ? " or prefix" : ""}.`, {
      hint: use === "read" ? "Dotted names such as net.ipv4.ip_forward, or a prefix ending in a dot such as vm." : "Dotted words such as net.ipv4.ip_forward (2 to 8 words of letters, digits, _ and -).",
    });
  }
  return `/proc/sys/${words.map((w) => w.replace(/\//g, ".")).join("/")}`;
}
