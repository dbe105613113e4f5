/** Public surface of the command-risk engine (docs/risk.md). */
export { createRiskEngine, decisionFor, type RiskEngine } from "./engine.ts";
export type { ShellParser } from "./analyser.ts";
export type { Rule } from "./rule.ts";
export { ALL_RULES } from "./rules/index.ts";
export { LIMITS } from "./limits.ts";
export { programTableSize } from "./programs/index.ts";
export type { AnalyseOptions, Decision, FoundCommand, RiskAssessment, RiskLevel, Signal, Span } from "./types.ts";
