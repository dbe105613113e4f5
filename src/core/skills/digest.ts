import { checkTree, type TreeFile } from "./tree.ts";

/** An incremental SHA-256 (the adapter supplies node:crypto's; core has no hashing of its own). */
export interface Sha256 {
  update(bytes: Uint8Array): void;
  /** Lower-case hex, 64 characters. */
  digestHex(): string;
}

/** A skill digest as written everywhere: `sha256:` + 64 lower-case hex digits. */
export type SkillDigest = `sha256:${string}`;

export const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

function u64(n: number): Uint8Array {
  const b = new Uint8Array(8);
  let v = n;
  for (let i = 7; i >= 0; i--) { b[i] = v % 256; v = Math.floor(v / 256); }
  return b;
}

/**
 * The digest of a skill's file tree (issue 11): one SHA-256 over, for each regular file in UTF-8 byte order
 * of its path, `u64be(len(path)) ‖ path ‖ u64be(len(content)) ‖ content`. Lengths are in bytes. Only paths
 * and contents count: no modes, owners or times, so the same tree has the same digest from a directory, an
 * archive or the store. Throws TreeError for a tree {@link checkTree} refuses (traversal, duplicates, caps).
 */
export function treeDigest(files: readonly TreeFile[], newSha256: () => Sha256): SkillDigest {
  const h = newSha256();
  const enc = new TextEncoder();
  for (const f of checkTree(files)) {
    const p = enc.encode(f.path);
    h.update(u64(p.length));
    h.update(p);
    h.update(u64(f.bytes.length));
    h.update(f.bytes);
  }
  return `sha256:${h.digestHex()}`;
}
