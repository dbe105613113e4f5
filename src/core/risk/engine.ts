import { riskRank as rank } from "../risk-level.ts";
import { decisionForRisk } from "../policy/decision.ts";
import { analyse, type RuleBook, type ShellParser } from "./analyser.ts";
import { LIMITS } from "./limits.ts";
import type { Rule } from "./rule.ts";
import { ALL_RULES, buildRuleBook } from "./rules/index.ts";
import type { AnalyseOptions, Decision, RiskAssessment, RiskLevel, Signal } from "./types.ts";

/** The command-risk engine bound to a parser. `assess` is pure and deterministic for a given input. */
export interface RiskEngine {
  assess(command: string, options?: AnalyseOptions): RiskAssessment;
  readonly rules: readonly Rule[];
}

/**
 * The decision for a risk level with no user policy; lives in core/policy (the default PolicyEngine,
 * core/policy/risk-only.ts, owns it). Kept here so the engine's own verdict stays self-contained.
 */
export function decisionFor(level: RiskLevel): Decision {
  return decisionForRisk(level);
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

function verdict(signals: Signal[], commands: RiskAssessment["commands"]): RiskAssessment {
  let level: RiskLevel = "low";
  for (const s of signals) if (rank(s.severity) > rank(level)) level = s.severity;
  const sorted = [...signals].sort((a, b) => rank(b.severity) - rank(a.severity) || a.span.start - b.span.start || a.span.end - b.span.end || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { decision: decisionFor(level), risk_level: level, signals: sorted, commands };
}

function assessWith(parser: ShellParser, book: RuleBook, command: string, options: AnalyseOptions = {}): RiskAssessment {
  const bytes = utf8Length(command);
  if (bytes > LIMITS.maxInputBytes) {
    const rule = book.byId.get("too_complex")!;
    return verdict([{ id: rule.id, severity: rule.severity, reason: `${rule.reason} (input is ${bytes} bytes, limit ${LIMITS.maxInputBytes})`, span: { start: 0, end: bytes } }], []);
  }
  const found = analyse(command, parser, book, options.interpreter ?? "bash");
  return verdict(found.signals, found.commands);
}

/**
 * Builds the engine: indexes the rules, then runs every rule's examples through the real analyser.
 * Throws an Error naming the rule and the example when a must-match example does not produce the rule's
 * signal or a must-not-match example does. `rules` defaults to ALL_RULES (tests pass broken rules).
 */
export function createRiskEngine(parser: ShellParser, rules: readonly Rule[] = ALL_RULES): RiskEngine {
  const book = buildRuleBook(rules);
  for (const rule of rules) {
    for (const ex of rule.examples.match) {
      const got = assessWith(parser, book, ex);
      if (!got.signals.some((s) => s.id === rule.id)) {
        throw new Error(`risk rule "${rule.id}": example ${JSON.stringify(ex)} must match but produced [${got.signals.map((s) => s.id).join(", ")}]`);
      }
    }
    for (const ex of rule.examples.noMatch) {
      const got = assessWith(parser, book, ex);
      if (got.signals.some((s) => s.id === rule.id)) throw new Error(`risk rule "${rule.id}": example ${JSON.stringify(ex)} must not match but did`);
    }
  }
  return { assess: (command, options) => assessWith(parser, book, command, options), rules };
}
