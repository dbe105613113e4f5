import { loadShellParser } from "../../src/adapters/shell-parser.ts";
import { createRiskEngine, type RiskEngine } from "../../src/core/risk/index.ts";

let engine: Promise<RiskEngine> | null = null;

/** One engine per test process, over the real tree-sitter-bash parser. */
export function testEngine(): Promise<RiskEngine> {
  engine ??= loadShellParser().then((p) => createRiskEngine(p));
  return engine;
}
