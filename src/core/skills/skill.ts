import { treeDigest, type Sha256, type SkillDigest } from "./digest.ts";
import { SKILL_LIMITS } from "./limits.ts";
import { parseSkillMd, type SkillManifest, type SkillProblem } from "./manifest.ts";
import { parseSideFile, SIDE_FILE, type HostgateSide } from "./side-file.ts";
import { checkTree, TreeError, type TreeFile } from "./tree.ts";

/** A skill as loaded from any source: its manifest, body, declarations, files, digest and problems. */
export interface Skill {
  /** The directory name (equal to manifest.name when valid). */
  name: string;
  /** Null when SKILL.md has problems. */
  manifest: SkillManifest | null;
  body: string;
  side: HostgateSide;
  files: { path: string; size: number }[];
  /** Null only when the tree itself was refused (then `problems` says why). */
  digest: SkillDigest | null;
  problems: SkillProblem[];
  /** SKILL.md's front matter as JSON, verbatim (set only when SKILL.md is valid): SEP-2640 entries carry it. */
  frontmatter?: Record<string, unknown>;
}

/** A skill is offered only when it has no problems at all. */
export function isValid(skill: Skill): skill is Skill & { manifest: SkillManifest; digest: SkillDigest } {
  return skill.problems.length === 0 && skill.manifest !== null && skill.digest !== null;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes UTF-8, or returns null for bytes that are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Builds a {@link Skill} from its directory name and file tree, with every problem found: the tree rules
 * (tree.ts), SKILL.md present, UTF-8 and ≤ 256 KiB, the specification's front matter (manifest.ts) and
 * hostgate's side file (side-file.ts). Never throws for bad content: bad content is problems.
 */
export function loadSkill(dirName: string, files: readonly TreeFile[], sha256: () => Sha256): Skill {
  const base: Skill = { name: dirName, manifest: null, body: "", side: { entrypoints: [] }, files: [], digest: null, problems: [] };
  let sorted: TreeFile[];
  let digest: SkillDigest;
  try {
    sorted = checkTree(files);
    digest = treeDigest(sorted, sha256);
  } catch (err) {
    if (err instanceof TreeError) return { ...base, problems: [{ code: "tree_refused", file: err.path, message: err.message }] };
    throw err;
  }
  const problems: SkillProblem[] = [];
  const byPath = new Map(sorted.map((f) => [f.path, f.bytes]));
  const skill: Skill = { ...base, files: sorted.map((f) => ({ path: f.path, size: f.bytes.length })), digest, problems };
  const md = byPath.get("SKILL.md");
  if (!md) {
    problems.push({ code: "skill_md_missing", file: "SKILL.md", message: "the skill has no SKILL.md at its top level." });
    return skill;
  }
  if (md.length > SKILL_LIMITS.skillMdBytes) {
    problems.push({ code: "skill_md_too_large", file: "SKILL.md", message: `SKILL.md is ${md.length} bytes; the limit is ${SKILL_LIMITS.skillMdBytes}. Move detail into references/.` });
    return skill;
  }
  const text = decodeUtf8(md);
  if (text === null) {
    problems.push({ code: "skill_md_not_utf8", file: "SKILL.md", message: "SKILL.md is not valid UTF-8." });
    return skill;
  }
  const parsed = parseSkillMd(text, dirName);
  problems.push(...parsed.problems);
  skill.manifest = parsed.manifest;
  skill.body = parsed.body;
  if (parsed.frontmatter) skill.frontmatter = parsed.frontmatter;
  const sideBytes = byPath.get(SIDE_FILE);
  const sideText = sideBytes === undefined ? null : decodeUtf8(sideBytes);
  if (sideBytes !== undefined && sideText === null) problems.push({ code: "side_file_not_utf8", file: SIDE_FILE, message: `${SIDE_FILE} is not valid UTF-8.` });
  else {
    const side = parseSideFile(sideText, new Set(byPath.keys()));
    problems.push(...side.problems);
    skill.side = side.side;
  }
  return skill;
}
