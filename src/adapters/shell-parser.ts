import { createRiskEngine, type RiskEngine } from "../core/risk/index.ts";
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import type { Tree } from "web-tree-sitter";
import type { ShellParser } from "../core/risk/analyser.ts";
import { LIMITS } from "../core/risk/limits.ts";

let loading: Promise<ShellParser> | null = null;

/**
 * Loads tree-sitter-bash (web-tree-sitter + node_modules/tree-sitter-bash/tree-sitter-bash.wasm) on first
 * call and returns the same parser afterwards. Lazy so the MCP server starts without paying for it
 * (~60 ms). Each parse is cancelled after LIMITS.parseBudgetMs and then returns null (the engine treats
 * that as too complex). Rejects when the wasm files cannot be read.
 */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= load().catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

async function load(): Promise<ShellParser> {
  const { Parser, Language } = await import("web-tree-sitter");
  const require = createRequire(import.meta.url);
  await Parser.init();
  const wasm = await readFile(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  const language = await Language.load(new Uint8Array(wasm));
  const parser = new Parser();
  parser.setLanguage(language);
  return {
    parse(text: string): Tree | null {
      const deadline = performance.now() + LIMITS.parseBudgetMs;
      parser.reset();
      return parser.parse(text, null, { progressCallback: () => performance.now() > deadline });
    },
  };
}

let engine: Promise<RiskEngine> | null = null;

/** The process-wide risk engine over the tree-sitter-bash parser, created on first use (loads the wasm lazily). */
export function loadRiskEngine(): Promise<RiskEngine> {
  engine ??= loadShellParser().then((p) => createRiskEngine(p)).catch((err: unknown) => {
    engine = null;
    throw err;
  });
  return engine;
}
