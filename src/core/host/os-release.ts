import type { DistroFamily } from "../catalogue/action.ts";

/**
 * Parses os-release(5) text (`KEY=value`, values optionally quoted with shell-style escapes) into a map.
 * Unknown or malformed lines are skipped, as the format asks. Source: os-release(5), "Syntax".
 */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = line.slice(0, eq);
    if (!/^[A-Z0-9_]+$/.test(key)) continue;
    let value = line.slice(eq + 1);
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\([$"\\`])/g, "$1");
    }
    out[key] = value;
  }
  return out;
}

const FAMILY_BY_ID: Record<string, DistroFamily> = {
  debian: "debian", ubuntu: "debian", raspbian: "debian", linuxmint: "debian", pop: "debian",
  fedora: "fedora", rhel: "fedora", centos: "fedora", rocky: "fedora", almalinux: "fedora", amzn: "fedora", ol: "fedora",
  arch: "arch", manjaro: "arch",
  suse: "suse", opensuse: "suse", sles: "suse", "opensuse-leap": "suse", "opensuse-tumbleweed": "suse",
  alpine: "alpine",
};

/** The distro family from os-release `ID`, then each word of `ID_LIKE`; `other` when none is known. */
export function familyOf(osRelease: Record<string, string>): DistroFamily {
  const ids = [osRelease.ID ?? "", ...(osRelease.ID_LIKE ?? "").split(/\s+/)];
  for (const id of ids) {
    const key = id.toLowerCase();
    if (Object.hasOwn(FAMILY_BY_ID, key)) return FAMILY_BY_ID[key]!; // not `in`: "constructor" etc. are inherited
  }
  return "other";
}
