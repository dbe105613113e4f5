import { loadShellParser } from "../../src/adapters/shell-parser.ts";
import { createRiskEngine, type RiskEngine, type ShellParser } from "../../src/core/risk/index.ts";

let engine: Promise<RiskEngine> | null = null;

/** The real tree-sitter-bash parser (core tests may not import adapters themselves). */
export function testParser(): Promise<ShellParser> {
  return loadShellParser();
}

/** One engine per test process, over the real tree-sitter-bash parser. */
export function testEngine(): Promise<RiskEngine> {
  engine ??= testParser().then((p) => createRiskEngine(p));
  return engine;
}
