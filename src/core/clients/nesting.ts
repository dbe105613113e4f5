/**
 * How deeply a configuration file's text nests, measured before any parser sees it. The parsers setup and
 * doctor use (jsonc-parser, smol-toml, yaml) descend recursively: a file of a few thousand `{"a":` overflows
 * the stack (RangeError) or exhausts memory, and the edit checks after a merge (structuredClone, jsonEqual)
 * recurse too. A client file is a few levels deep; anything past MAX_NESTING is refused with a message.
 */

/**
 * The deepest nesting accepted (brackets and braces open at once). Client files nest about 6 levels
 * (`mcpServers.name.env.KEY`); 64 leaves room for any hand-written file and stays far below the depth
 * (≈ 4,000 objects, measured with jsonc-parser on Node 20) at which a parser overflows the stack.
 */
export const MAX_NESTING = 64;

/** The text formats whose nesting is measured. */
export type TextFormat = "json" | "toml" | "yaml";

/**
 * The deepest point of `[`/`{` nesting in `text`, ignoring brackets inside strings and comments:
 * JSON with comments (`//`, `/* *\/`, "…"), TOML (`#`, "…", '…', """…""", '''…''') or YAML flow
 * collections (`#` after a blank, "…", '…'). Stops counting at `stopAt` (returns a value above it) so a huge
 * file costs one pass at most. Pure; never throws.
 */
export function nestingDepth(text: string, format: TextFormat, stopAt = MAX_NESTING): number {
  let depth = 0;
  let max = 0;
  let i = 0;
  const n = text.length;
  const skipTo = (end: string, from: number, escapes: boolean): number => {
    let j = from;
    while (j < n) {
      if (escapes && text[j] === "\\") { j += 2; continue; }
      if (text.startsWith(end, j)) return j + end.length;
      j++;
    }
    return n;
  };
  while (i < n) {
    const c = text[i]!;
    if (c === "[" || c === "{") {
      depth++;
      if (depth > max) max = depth;
      if (max > stopAt) return max;
      i++;
    } else if (c === "]" || c === "}") {
      if (depth > 0) depth--;
      i++;
    } else if (c === '"') {
      if (format === "toml" && text.startsWith('"""', i)) i = skipTo('"""', i + 3, true);
      else i = skipTo('"', i + 1, true);
    } else if (c === "'" && format !== "json") {
      if (format === "toml" && text.startsWith("'''", i)) i = skipTo("'''", i + 3, false);
      // YAML escapes a quote inside '…' by doubling it: two strings in a row, which counts the same.
      else i = skipTo("'", i + 1, false);
    } else if (c === "#" && format !== "json" && (format === "toml" || i === 0 || /\s/.test(text[i - 1]!))) {
      i = skipTo("\n", i + 1, false);
    } else if (c === "/" && format === "json" && text[i + 1] === "/") {
      i = skipTo("\n", i + 2, false);
    } else if (c === "/" && format === "json" && text[i + 1] === "*") {
      i = skipTo("*/", i + 2, false);
    } else {
      i++;
    }
  }
  return max;
}

/** Why a text nests too deeply to be parsed, or null. The message says what to do. */
export function tooDeep(text: string, format: TextFormat): string | null {
  const depth = nestingDepth(text, format);
  if (depth <= MAX_NESTING) return null;
  return `nested more than ${MAX_NESTING} levels deep (not a client configuration this can edit safely); fix or move the file away and run setup again`;
}
