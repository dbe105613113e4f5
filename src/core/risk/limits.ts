/**
 * Bounds on the work the engine does for one command line. Beyond any of them the line is not judged
 * piecemeal: it gets the `too_complex` signal (critical, so the decision is deny). The numbers come from
 * the budget (64 KiB must finish in ≤ 100 ms) with a wide margin; see docs/risk.md.
 */
export const LIMITS = {
  /** Largest input in UTF-8 bytes (DESIGN.md caps tool arguments at 64 KiB). */
  maxInputBytes: 64 * 1024,
  /** How many strings may be re-parsed inside each other (sh -c 'sh -c "…"', eval, here-docs). */
  maxDepth: 8,
  /** Syntax nodes across all parses of one line (a 64 KiB line of plain words has ~32k). */
  maxNodes: 16_000,
  /** Characters handed to the parser across all parses of one line (the input plus re-parsed strings). */
  maxParsedChars: 96 * 1024,
  /** Syntax nesting (substitutions inside substitutions, nested groups) the walker follows. */
  maxNesting: 200,
  /** Simple commands inspected across all parses of one line. */
  maxCommands: 500,
  /** Operators, brackets, quotes and `$` in one string, counted before parsing. */
  maxTokens: 8_000,
  /** Words (command names and arguments) across all commands inspected. */
  maxWords: 4_000,
  /** Number of re-parses (nested strings, alternatives) for one line. */
  maxParses: 200,
  /** Wall-clock budget for the tree-sitter parse of one string, in milliseconds. */
  parseBudgetMs: 50,
} as const;
