import type { Tree } from "web-tree-sitter";

/**
 * A plain-JavaScript copy of a tree-sitter syntax tree. The analyser walks this instead of web-tree-sitter's
 * Node objects because every Node property call crosses into WebAssembly; one cursor pass copies the whole
 * tree (and lets the wasm tree be freed at once). Indices are UTF-16 offsets into the parsed string, as in
 * web-tree-sitter; the API mirrors the parts of Node the analyser uses.
 */
export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
  parent: SyntaxNode | null = null;
  hasError = false;
  private index = 0;
  private named: SyntaxNode[] | null = null;

  constructor(
    /** The whole string this tree was parsed from. */
    readonly source: string,
    readonly type: string,
    readonly isNamed: boolean,
    readonly isMissing: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    readonly field: string | null,
  ) {}

  /** The source text this node covers. */
  get text(): string {
    return this.source.slice(this.startIndex, this.endIndex);
  }

  get isError(): boolean {
    return this.type === "ERROR";
  }

  get namedChildren(): SyntaxNode[] {
    this.named ??= this.children.filter((c) => c.isNamed);
    return this.named;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  get previousSibling(): SyntaxNode | null {
    return this.parent?.children[this.index - 1] ?? null;
  }

  child(i: number): SyntaxNode | null {
    return this.children[i] ?? null;
  }

  childForFieldName(name: string): SyntaxNode | null {
    return this.children.find((c) => c.field === name) ?? null;
  }

  childrenForFieldName(name: string): SyntaxNode[] {
    return this.children.filter((c) => c.field === name);
  }

  /** Every node below this one (not itself) whose type is in `types`, in document order. Iterative. */
  descendantsOfType(types: string | readonly string[]): SyntaxNode[] {
    const want = typeof types === "string" ? [types] : types;
    const out: SyntaxNode[] = [];
    const stack: SyntaxNode[] = [...this.children].reverse();
    while (stack.length) {
      const n = stack.pop()!;
      if (want.includes(n.type)) out.push(n);
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
    }
    return out;
  }

  /** Links a child (used while building). */
  append(child: SyntaxNode): void {
    child.parent = this;
    child.index = this.children.length;
    this.children.push(child);
  }
}

/**
 * Copies `tree` (parsed from `source`) into SyntaxNodes with one cursor walk, without recursion.
 * Returns null when the tree has more than `maxNodes` nodes (the caller treats that as too complex).
 */
export function copyTree(tree: Tree, source: string, maxNodes: number): { root: SyntaxNode; count: number; hasError: boolean } | null {
  const hasError = tree.rootNode.hasError;
  const cursor = tree.walk();
  const language = tree.language;
  let typeInfo = typeInfoByLanguage.get(language);
  if (!typeInfo) {
    typeInfo = new Map();
    typeInfoByLanguage.set(language, typeInfo);
  }
  // Each cursor property is a call into WebAssembly: read the type id once, cache names and namedness.
  const make = (): SyntaxNode => {
    const id = cursor.nodeTypeId;
    let info = typeInfo.get(id);
    if (!info) {
      info = { type: language.types[id] ?? "ERROR", named: cursor.nodeIsNamed };
      typeInfo.set(id, info);
    }
    const start = cursor.startIndex;
    const end = cursor.endIndex;
    // A MISSING node (inserted by error recovery) has zero width; only consulted when the tree has errors.
    const missing = hasError && start === end && info.type !== "heredoc_body";
    const field = cursor.currentFieldId;
    return new SyntaxNode(source, info.type, info.named, missing, start, end, field ? (language.fields[field] ?? null) : null);
  };
  try {
    const root = make();
    const path: SyntaxNode[] = [root];
    let count = 1;
    if (!cursor.gotoFirstChild()) return { root, count, hasError };
    for (;;) {
      const node = make();
      if (++count > maxNodes) return null;
      path[path.length - 1]!.append(node);
      if (cursor.gotoFirstChild()) {
        path.push(node);
        continue;
      }
      finish(node);
      while (!cursor.gotoNextSibling()) {
        cursor.gotoParent();
        finish(path.pop()!);
        if (path.length === 0) return { root, count, hasError };
      }
    }
  } finally {
    cursor.delete();
  }
}

const typeInfoByLanguage = new WeakMap<object, Map<number, { type: string; named: boolean }>>();

function finish(n: SyntaxNode): void {
  n.hasError = n.isError || n.isMissing || n.children.some((c) => c.hasError);
}
