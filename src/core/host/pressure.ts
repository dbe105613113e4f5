/** One PSI line: share of wall time (percent) stalled over 10 s, 60 s and 300 s, and total stall µs. */
export interface PressureLine {
  avg10: number;
  avg60: number;
  avg300: number;
  total_us: number;
}

/**
 * Parses a /proc/pressure/{cpu,memory,io} file (Documentation/accounting/psi.rst):
 * `some avg10=0.00 avg60=0.00 avg300=0.00 total=0` and an optional `full …` line.
 */
export function parsePressure(text: string): { some: PressureLine | null; full: PressureLine | null } {
  const result: { some: PressureLine | null; full: PressureLine | null } = { some: null, full: null };
  for (const line of text.split("\n")) {
    const m = /^(some|full) avg10=([\d.]+) avg60=([\d.]+) avg300=([\d.]+) total=(\d+)/.exec(line);
    if (!m) continue;
    result[m[1] as "some" | "full"] = { avg10: Number(m[2]), avg60: Number(m[3]), avg300: Number(m[4]), total_us: Number(m[5]) };
  }
  return result;
}
