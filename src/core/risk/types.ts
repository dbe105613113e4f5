import type { RiskLevel } from "../catalogue/action.ts";

export type { RiskLevel };

/** What the risk engine says about a command line (DESIGN.md, Words: policy decision). */
export type Decision = "allow" | "deny" | "require_approval";

/** A byte range in the analysed input: UTF-8 byte offsets, `start` inclusive, `end` exclusive. */
export interface Span {
  start: number;
  end: number;
}

/**
 * One finding. `id` names the rule that produced it (see docs/risk.md and src/core/risk/rules/),
 * `severity` is that rule's risk level, `span` points at the part of the input that triggered it
 * (for code found inside a re-parsed string, the span of the outer string).
 */
export interface Signal {
  id: string;
  severity: RiskLevel;
  reason: string;
  span: Span;
}

/**
 * A command the engine found that could run. `argv` is normalised: quotes and escapes removed, ANSI-C
 * strings decoded, wrappers stripped (they are listed in `via`), unknown expansions shown as `${NAME}`
 * or `$(…)`. `depth` counts re-parsed strings (sh -c, eval, here-docs) above it; `dynamic` is true when
 * the command name itself could not be resolved statically.
 */
export interface FoundCommand {
  name: string;
  argv: string[];
  via: string[];
  depth: number;
  dynamic: boolean;
  span: Span;
}

/** The engine's verdict on one command line. Deterministic for the same input and options. */
export interface RiskAssessment {
  decision: Decision;
  risk_level: RiskLevel;
  signals: Signal[];
  commands: FoundCommand[];
}

/** Options for one analysis. `interpreter` names the shell that will run the line (default `bash`). */
export interface AnalyseOptions {
  interpreter?: string;
}
