import type { RuleBook } from "../analyser.ts";
import type { Rule } from "../rule.ts";
import { RISK_LEVELS } from "../../catalogue/action.ts";
import { AVAILABILITY_RULES } from "./availability.ts";
import { CODE_EXEC_RULES } from "./code-exec.ts";
import { CREDENTIAL_RULES } from "./credentials.ts";
import { ENDPOINT_RULES } from "./endpoints.ts";
import { FAN_OUT_RULES } from "./fan-out.ts";
import { NETWORK_RULES } from "./network.ts";
import { OPTION_RULES } from "./options.ts";
import { tableSignals } from "../programs/index.ts";
import { FILESYSTEM_RULES } from "./filesystem.ts";
import { PERMISSION_RULES } from "./permissions.ts";
import { SECRET_RULES } from "./secrets.ts";
import { STRUCTURAL_RULES } from "./structural.ts";
import { SYSTEM_FILE_RULES } from "./system-files.ts";
import { TOOL_RULES } from "./tools.ts";
import { ROUTER_RULES } from "./router.ts";

/** Every rule the engine knows, one file per concern (see docs/risk.md, "Adding a rule"). */
export const ALL_RULES: readonly Rule[] = [
  ...STRUCTURAL_RULES,
  ...FILESYSTEM_RULES,
  ...PERMISSION_RULES,
  ...SYSTEM_FILE_RULES,
  ...CODE_EXEC_RULES,
  ...AVAILABILITY_RULES,
  ...SECRET_RULES,
  ...TOOL_RULES,
  ...OPTION_RULES,
  ...NETWORK_RULES,
  ...FAN_OUT_RULES,
  ...CREDENTIAL_RULES,
  ...ENDPOINT_RULES,
  ...ROUTER_RULES,
];

// Every signal an option table names must be a rule, or the option would be read and then ignored.
for (const id of tableSignals()) {
  if (!ALL_RULES.some((r) => r.id === id)) throw new Error(`risk program table: option signal "${id}" has no rule`);
}

/**
 * Indexes rules for the analyser and checks their shape: unique snake_case ids, a known severity, a
 * reason, at least one must-match example. Throws an Error naming the rule on the first problem.
 * (Examples are run against the real parser by `createRiskEngine`.)
 */
export function buildRuleBook(rules: readonly Rule[]): RuleBook {
  const byId = new Map<string, Rule>();
  const byName = new Map<string, Rule[]>();
  const prefixes: { prefix: string; rule: Rule }[] = [];
  const everyCommand: Rule[] = [];
  for (const rule of rules) {
    const where = `risk rule "${rule.id}"`;
    if (!/^[a-z][a-z0-9_]*$/.test(rule.id)) throw new Error(`${where}: id must be snake_case`);
    if (byId.has(rule.id)) throw new Error(`${where}: duplicate id`);
    if (!RISK_LEVELS.includes(rule.severity)) throw new Error(`${where}: unknown severity "${rule.severity as string}"`);
    if (!rule.reason.trim()) throw new Error(`${where}: empty reason`);
    if (rule.examples.match.length === 0) throw new Error(`${where}: needs at least one must-match example`);
    if ((rule.commands === undefined) !== (rule.test === undefined)) throw new Error(`${where}: commands and test go together`);
    byId.set(rule.id, rule);
    for (const name of rule.commands ?? []) {
      if (name === "*") everyCommand.push(rule);
      else if (name.endsWith("*")) prefixes.push({ prefix: name.slice(0, -1), rule });
      else byName.set(name, [...(byName.get(name) ?? []), rule]);
    }
  }
  return { byId, byName, prefixes, everyCommand };
}
