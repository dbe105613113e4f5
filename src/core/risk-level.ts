/**
 * Risk levels (DESIGN.md, Words: risk): the one definition of the names and their order, low < medium < high <
 * critical. Every rank, maximum and comparison of levels (risk engine, plan risk, passkey threshold, WriteFile's
 * sensitive paths, Cedar's `risk_rank`) and every wire or config schema of a level is built from RISK_LEVELS.
 */
export const RISK_LEVELS = ["low", "medium", "high", "critical"] as const;

/** How dangerous an action or command is: one of {@link RISK_LEVELS}. */
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** The place of `level` in {@link RISK_LEVELS}: 0 (low) to 3 (critical); Cedar policies see it as `context.risk_rank`. */
export function riskRank(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

/** The highest of `levels` (a plan's risk: it decides what the approver must type); `low` for none. */
export function highestRisk(levels: readonly RiskLevel[]): RiskLevel {
  let i = 0;
  for (const l of levels) i = Math.max(i, riskRank(l));
  return RISK_LEVELS[i]!;
}
