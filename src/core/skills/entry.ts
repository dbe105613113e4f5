import type { Sha256, SkillDigest } from "./digest.ts";
import { SKILL_NAME_MAX, SKILL_NAME_RE } from "./manifest.ts";
import { checkTreePath, compareUtf8, TreeError, type TreeFile } from "./tree.ts";

/*
 * The MCP Skills extension (SEP-2640, `io.modelcontextprotocol/skills`, final September 2026; the stable
 * specification `specification/stable/skills.mdx` of modelcontextprotocol/ext-skills): skill entries, skill
 * URIs and directory listings, as pure functions. The daemon builds entries (app/skills/extension.ts); the MCP
 * front only forwards them.
 */

/**
 * The extension's per-skill limits: 512 files and 16 MiB (16,777,216 bytes) in all, counted over the entry's
 * `resources`. Servers SHOULD NOT serve a larger skill (specification, "Limits"); hostgate's own tree caps
 * (2,000 files, 32 MiB) are wider, so a skill between the two is served by the skills_* tools only.
 */
export const SKILL_EXT_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 } as const;

/** The `mimeType` of a directory resource (specification, "Directory Resources"). */
export const DIRECTORY_MIME = "inode/directory";

/** One file of a skill: its path in the tree, `sha256:` + 64 lower-case hex of its raw bytes, its size in bytes. */
export interface FileDigest {
  path: string;
  digest: SkillDigest;
  size: number;
}

/** One skill entry as `skills/list` and `skills/get` carry it: `uri` of SKILL.md, verbatim front matter, every file. */
export interface SkillEntry {
  uri: string;
  frontmatter: { name: string; description: string; [key: string]: unknown };
  resources: { uri: string; digest: SkillDigest; size: number }[];
  _meta?: Record<string, unknown>;
}

/**
 * The per-file digest set of a tree (the set SEP-2640 binds approvals to): SHA-256 of each file's raw bytes,
 * sorted by the UTF-8 byte order of the paths (the order of the tree digest). `newSha256` is the adapter's hash.
 */
export function fileDigests(files: readonly TreeFile[], newSha256: () => Sha256): FileDigest[] {
  return [...files].sort((a, b) => compareUtf8(a.path, b.path)).map((f) => {
    const h = newSha256();
    h.update(f.bytes);
    return { path: f.path, digest: `sha256:${h.digestHex()}`, size: f.bytes.length };
  });
}

/** What differs between two digest sets, by path: files only in `after`, only in `before`, and with other bytes. */
export interface DigestSetDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/** Compares two digest sets (e.g. the one a grant was given for and the one on disk now). */
export function diffDigestSets(before: readonly FileDigest[], after: readonly FileDigest[]): DigestSetDiff {
  const was = new Map(before.map((f) => [f.path, f]));
  const now = new Map(after.map((f) => [f.path, f]));
  return {
    added: [...now.keys()].filter((p) => !was.has(p)),
    removed: [...was.keys()].filter((p) => !now.has(p)),
    changed: [...now.values()].filter((f) => was.has(f.path) && (was.get(f.path)!.digest !== f.digest || was.get(f.path)!.size !== f.size)).map((f) => f.path),
  };
}

/** True when the diff is empty: the same files with the same bytes. */
export function sameDigestSet(diff: DigestSetDiff): boolean {
  return diff.added.length + diff.removed.length + diff.changed.length === 0;
}

/** "scripts/x.sh changed, notes.md added" (at most `max` paths named), for refusals a human reads. */
export function describeDiff(diff: DigestSetDiff, max = 5): string {
  const parts = [...diff.changed.map((p) => `${p} changed`), ...diff.added.map((p) => `${p} added`), ...diff.removed.map((p) => `${p} removed`)];
  return parts.length <= max ? parts.join(", ") : `${parts.slice(0, max).join(", ")} and ${parts.length - max} more`;
}

/** Percent-encodes each segment of a tree path for a URI (letters, digits and `-._~` stay as they are). */
function encodePath(path: string): string {
  return path.split("/").map((s) => encodeURIComponent(s)).join("/");
}

/** `skill://<name>/<path>`: the resource URI of one file of a local skill (no organisational prefix). */
export function skillFileUri(name: string, path: string): string {
  return path === "" ? `skill://${name}` : `skill://${name}/${encodePath(path)}`;
}

/** A skill URI taken apart: the skill's name and a path in its tree (`""`: the skill's root directory). */
export type SkillUri = { name: string; path: string } | { error: string };

/**
 * Parses `skill://<name>[/<path>]` (path segments percent-decoded, then held to the tree rules of tree.ts).
 * Returns `{ error }` with a sentence saying what is wrong: another scheme, a name that is not a skill name, a
 * trailing slash (directory URIs have none, specification "Directory Resources"), a `..`, an encoded `/`.
 */
export function parseSkillUri(uri: string): SkillUri {
  if (!uri.startsWith("skill://")) return { error: `${JSON.stringify(uri.slice(0, 200))} is not a skill:// URI.` };
  const [name = "", ...segments] = uri.slice("skill://".length).split("/");
  if (name.length === 0 || name.length > SKILL_NAME_MAX || !SKILL_NAME_RE.test(name)) return { error: `${JSON.stringify(uri.slice(0, 200))} does not start with a skill name (skill://<name>/…, a-z, 0-9 and single hyphens).` };
  if (segments.length === 0) return { name, path: "" };
  const decoded: string[] = [];
  for (const s of segments) {
    let d: string;
    try {
      d = decodeURIComponent(s);
    } catch {
      return { error: `${JSON.stringify(uri.slice(0, 200))} has a malformed percent-encoding.` };
    }
    if (d.includes("/")) return { error: `${JSON.stringify(uri.slice(0, 200))} encodes a "/" inside a path segment.` };
    decoded.push(d);
  }
  const path = decoded.join("/");
  try {
    checkTreePath(path);
  } catch (err) {
    if (err instanceof TreeError) return { error: `${JSON.stringify(uri.slice(0, 200))}: ${err.message}${uri.endsWith("/") ? " (a directory URI has no trailing slash)" : ""}.` };
    throw err;
  }
  return { name, path };
}

/** The extension's limits for one digest set: null when within, else a sentence naming the limit. */
export function extLimitProblem(files: readonly FileDigest[]): string | null {
  if (files.length > SKILL_EXT_LIMITS.files) return `it has ${files.length} files; the Skills extension serves at most ${SKILL_EXT_LIMITS.files}`;
  const total = files.reduce((n, f) => n + f.size, 0);
  if (total > SKILL_EXT_LIMITS.bytes) return `its files hold ${total} bytes; the Skills extension serves at most ${SKILL_EXT_LIMITS.bytes}`;
  return null;
}

/**
 * A skill's entry. `frontmatter` is SKILL.md's front matter as JSON, verbatim, from the same bytes whose digest
 * is listed; its `name` must equal `name` (the URI's last segment, specification "Resource Mapping"), which the
 * caller checked by validating the skill (manifest.ts `name_mismatch`). `meta` becomes the entry's `_meta`.
 */
export function skillEntry(name: string, frontmatter: Record<string, unknown>, files: readonly FileDigest[], meta?: Record<string, unknown>): SkillEntry {
  return {
    uri: skillFileUri(name, "SKILL.md"),
    frontmatter: frontmatter as SkillEntry["frontmatter"],
    resources: files.map((f) => ({ uri: skillFileUri(name, f.path), digest: f.digest, size: f.size })),
    ...(meta ? { _meta: meta } : {}),
  };
}

/** One direct child of a directory of a skill tree. */
export interface DirectoryChild {
  name: string;
  /** Path in the tree. */
  path: string;
  kind: "file" | "directory";
}

/**
 * The direct children of directory `dir` (`""`: the root) of a tree given by its file paths, files and
 * directories sorted by UTF-8 byte order of their names; null when `dir` is not a directory of the tree (a
 * file, or nothing).
 */
export function directoryChildren(paths: readonly string[], dir: string): DirectoryChild[] | null {
  const prefix = dir === "" ? "" : `${dir}/`;
  const out = new Map<string, DirectoryChild>();
  for (const p of paths) {
    if (!p.startsWith(prefix)) continue;
    const rest = p.slice(prefix.length);
    const slash = rest.indexOf("/");
    const childName = slash < 0 ? rest : rest.slice(0, slash);
    if (!out.has(childName)) out.set(childName, { name: childName, path: prefix + childName, kind: slash < 0 ? "file" : "directory" });
  }
  if (out.size === 0 && dir !== "") return null;
  return [...out.values()].sort((a, b) => compareUtf8(a.name, b.name));
}

/** The `mimeType` of a skill file: Markdown, YAML, JSON, shell and Python by extension, other text, or bytes. */
export function skillFileMime(path: string, isText: boolean): string {
  if (!isText) return "application/octet-stream";
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  const byExt: Record<string, string> = { md: "text/markdown", yaml: "application/yaml", yml: "application/yaml", json: "application/json", sh: "text/x-shellscript", py: "text/x-python" };
  return (ext && byExt[ext]) || "text/plain";
}
