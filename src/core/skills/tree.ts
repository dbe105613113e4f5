import { utf8Length } from "../limits.ts";
import { SKILL_LIMITS } from "./limits.ts";

/** One regular file of a skill tree: its relative POSIX path and its bytes. */
export interface TreeFile {
  path: string;
  bytes: Uint8Array;
}

/** Why a tree entry is refused (symlink, device, traversal…): `path` as found, `reason` for a human. */
export class TreeError extends Error {
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`${JSON.stringify(path)}: ${reason}`);
    this.name = "TreeError";
    this.path = path;
  }
}

/**
 * Checks one relative path of a skill tree and returns it unchanged, or throws {@link TreeError}. Refused:
 * empty, absolute (`/…`), any `.` or `..` component, empty components (`a//b`, trailing `/`), backslashes
 * (another OS's separator, so one archive could mean two trees), control characters, longer than 1 KiB or
 * deeper than 16 components. The same rules apply to files on disk and to entries in an archive.
 */
export function checkTreePath(path: string): string {
  if (path.length === 0) throw new TreeError(path, "empty path");
  if (utf8Length(path) > 1024) throw new TreeError(path.slice(0, 64) + "…", "path longer than 1 KiB");
  if (path.startsWith("/")) throw new TreeError(path, "absolute path");
  if (path.includes("\\")) throw new TreeError(path, "backslash in path");
  if (/[\u0000-\u001f\u007f]/.test(path)) throw new TreeError(path, "control character in path");
  const parts = path.split("/");
  if (parts.length > SKILL_LIMITS.treeDepth) throw new TreeError(path, `deeper than ${SKILL_LIMITS.treeDepth} components`);
  for (const p of parts) {
    if (p === "") throw new TreeError(path, "empty path component");
    if (p === "." || p === "..") throw new TreeError(path, "`.` or `..` component (path traversal)");
  }
  return path;
}

/** Byte order of UTF-8 encodings, which is code point order (not JavaScript's UTF-16 order). */
export function compareUtf8(a: string, b: string): number {
  const ea = new TextEncoder().encode(a);
  const eb = new TextEncoder().encode(b);
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i++) if (ea[i] !== eb[i]) return ea[i]! - eb[i]!;
  return ea.length - eb.length;
}

/**
 * Checks a whole tree: every path valid, no duplicates, and within the file-count, per-file and total size
 * caps. Returns the files sorted by UTF-8 byte order of their paths. Throws {@link TreeError}.
 */
export function checkTree(files: readonly TreeFile[]): TreeFile[] {
  if (files.length > SKILL_LIMITS.treeFiles) throw new TreeError("", `more than ${SKILL_LIMITS.treeFiles} files`);
  let total = 0;
  const seen = new Set<string>();
  for (const f of files) {
    checkTreePath(f.path);
    if (seen.has(f.path)) throw new TreeError(f.path, "duplicate path");
    seen.add(f.path);
    if (f.bytes.length > SKILL_LIMITS.fileBytes) throw new TreeError(f.path, `file larger than ${SKILL_LIMITS.fileBytes} bytes`);
    total += f.bytes.length;
  }
  if (total > SKILL_LIMITS.treeBytes) throw new TreeError("", `tree larger than ${SKILL_LIMITS.treeBytes} bytes`);
  // A file may not also be a directory of another path (`a` and `a/b`): no filesystem can hold both.
  for (const p of seen) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (seen.has(dir)) throw new TreeError(p, `${JSON.stringify(dir)} is both a file and a directory`);
    }
  }
  return [...files].sort((a, b) => compareUtf8(a.path, b.path));
}
