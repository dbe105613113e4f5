import type { Tree } from "web-tree-sitter";
import type { Cmd } from "./command.ts";
import { nested, emit, spanOf, tooComplex, type Ctx, type Scope } from "./context.ts";
import { LIMITS } from "./limits.ts";
import { copyTree, type SyntaxNode as Node } from "./syntax.ts";
import { walk } from "./walk.ts";

/**
 * Parses one string (the input line or a re-parsed string inside it) within the limits, reports what does not
 * parse, and walks the tree. The runtime rewrite of the same text (`${IFS}`, brace lists) is analysed as well.
 */
export function analyseText(text: string, ctx: Ctx, scope: Scope): void {
  if (ctx.complex) return;
  if (scope.depth > LIMITS.maxDepth) { tooComplex(ctx, scope, null, `strings nested deeper than ${LIMITS.maxDepth}`); return; }
  if (++ctx.parses > LIMITS.maxParses) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxParses} nested strings`); return; }
  ctx.parsedChars += text.length;
  if (ctx.parsedChars > LIMITS.maxParsedChars) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxParsedChars} characters to parse`); return; }
  const shape = preScan(text);
  if (shape.nesting > LIMITS.maxNesting) { tooComplex(ctx, scope, null, `brackets nested deeper than ${LIMITS.maxNesting}`); return; }
  if (shape.tokens > LIMITS.maxTokens) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxTokens} operators, brackets and quotes`); return; }
  if (shape.words > LIMITS.maxWords) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxWords} words`); return; }
  let tree: Tree | null;
  try {
    tree = ctx.parser.parse(text);
  } catch {
    tree = null;
  }
  if (!tree) { tooComplex(ctx, scope, null, "parse budget exceeded"); return; }
  let copy: ReturnType<typeof copyTree> = null;
  try {
    if (tree.rootNode.descendantCount + ctx.nodes <= LIMITS.maxNodes) copy = copyTree(tree, text, LIMITS.maxNodes - ctx.nodes);
  } finally {
    tree.delete();
  }
  if (!copy) { tooComplex(ctx, scope, null, `more than ${LIMITS.maxNodes} syntax nodes`); return; }
  ctx.nodes += copy.count;
  const root = copy.root;
  if (copy.hasError) emit(ctx, scope, "unparseable", firstError(root) ?? root);
  walk(root, ctx, scope);
  const alt = runtimeRewrite(text);
  if (alt !== null && !ctx.complex) analyseText(alt, ctx, { ...scope, depth: scope.depth + 1, origin: scope.origin ?? spanOf(ctx, scope, null) });
}

/**
 * Upper estimates read before parsing, so pathological inputs never reach the parser: bracket nesting
 * (outside single quotes), shell tokens likely to become syntax nodes (operators, brackets, quotes, `$`),
 * and whitespace-separated words. Quoting mistakes only make the estimates larger.
 */
function preScan(text: string): { nesting: number; tokens: number; words: number } {
  let depth = 0;
  let nesting = 0;
  let tokens = 0;
  let words = 0;
  let single = false;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const space = c === 0x20 || c === 0x09 || c === 0x0a;
    if (!space && !inWord) words++;
    inWord = !space;
    if (TOKEN[c] === 1) tokens++;
    if (c === 0x27) single = !single;
    else if (single) continue;
    else if (c === 0x28 || c === 0x7b || c === 0x5b) { if (++depth > nesting) nesting = depth; }
    else if (c === 0x29 || c === 0x7d || c === 0x5d) { if (depth > 0) depth--; }
    else if (c === 0x5c) i++;
  }
  return { nesting, tokens, words };
}

const TOKEN = new Uint8Array(128);
for (const ch of "(){}[]$|;&\n'\"`<>") TOKEN[ch.charCodeAt(0)] = 1;

function firstError(node: Node): Node | null {
  if (node.isError || node.isMissing) return node;
  for (const c of node.children) {
    if (c?.hasError || c?.isMissing) {
      const hit = firstError(c);
      if (hit) return hit;
    }
  }
  return null;
}

/**
 * The line as the shell will see it after expansions the grammar keeps inside one word: `${IFS}` becomes
 * a space and unquoted `{a,b}` brace lists become separate words. Analysed as well (never instead), so
 * `rm${IFS}-rf${IFS}/` and `{rm,-rf,/}` are judged as `rm -rf /`. Returns null when nothing changes.
 */
function runtimeRewrite(text: string): string | null {
  let out = text.replace(/\$\{IFS\}|\$IFS\b/g, " ");
  out = out.replace(/(^|[\s;&|(])([^\s;&|()'"{}]*)\{([^{}\s'"]*,[^{}\s'"]*)\}([^\s;&|()'"]*)/g, (_m, lead: string, pre: string, list: string, post: string) =>
    lead + list.split(",").map((x) => pre + x + post).join(" "));
  return out === text ? null : out;
}

/** Static text is parsed again as shell code, one level deeper, findings pointing at command `at`. */
export function analyseCode(text: string, ctx: Ctx, scope: Scope, at: Cmd): void {
  analyseText(text, ctx, nested(scope, ctx, at, at.name));
}
