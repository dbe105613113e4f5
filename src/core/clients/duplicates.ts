import { findNodeAtLocation, parseTree, type Node } from "jsonc-parser";

/**
 * Duplicate keys in a JSON/JSONC client file, on the path setup edits. With a repeated member every JSON
 * reader (the client's included) keeps the last occurrence, while an edit by location can land in the
 * first: the entry would be written where nobody reads it and setup would report success (corpus T3-33).
 * So a repeated key in the top-level object, in the server table or in our entry refuses the edit.
 */

function repeated(obj: Node | undefined): string | null {
  if (obj?.type !== "object") return null;
  const seen = new Set<string>();
  for (const prop of obj.children ?? []) {
    const key = prop.children?.[0]?.value as unknown;
    if (typeof key !== "string") continue;
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return null;
}

/**
 * The first key repeated inside an object on `path` (the root object, then each object the path goes
 * through, then the object at its end) with where it is, or null when none is. Text that does not parse answers null (the merge reports the syntax error itself). Pure.
 */
export function duplicateOnPath(text: string, path: readonly string[]): { where: string; key: string } | null {
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  if (root === undefined) return null;
  for (let depth = 0; depth <= path.length; depth++) {
    const sub = path.slice(0, depth);
    const node = depth === 0 ? root : findNodeAtLocation(root, [...sub]);
    const key = repeated(node);
    if (key !== null) return { where: depth === 0 ? "the top level" : `\`${sub.join(".")}\``, key };
    if (node === undefined) break;
  }
  return null;
}
