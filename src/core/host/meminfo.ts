/**
 * Parses /proc/meminfo into bytes per field. Lines are `Name:   value kB` (kB means KiB, proc(5)); fields
 * without a unit (HugePages_Total…) are kept as plain counts.
 */
export function parseMeminfo(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m = /^([A-Za-z0-9_()]+):\s+(\d+)(?:\s+kB)?\s*$/.exec(line);
    if (!m) continue;
    const value = Number(m[2]);
    out[m[1]!] = line.trimEnd().endsWith("kB") ? value * 1024 : value;
  }
  return out;
}
