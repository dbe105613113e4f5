import { parseDocument } from "yaml";

/**
 * One problem found while validating a skill: a stable `code`, where (`file`, and `field` when it is about
 * one front-matter field) and a message that says what to change.
 */
export interface SkillProblem {
  code: string;
  file: string;
  field?: string;
  message: string;
}

/** The SKILL.md front matter of the open Agent Skills format (agentskills.io specification). */
export interface SkillManifest {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  /** `allowed-tools`, split on spaces (experimental in the specification). */
  allowed_tools?: string[];
}

/** The fields the specification defines; any other top-level key is a problem (as its reference validator says). */
const KNOWN_FIELDS = new Set(["name", "description", "license", "compatibility", "metadata", "allowed-tools"]);

/**
 * Skill names: 1–64 characters of a–z, 0–9 and `-`, not starting or ending with `-`, no `--` (specification).
 * hostgate keeps to ASCII although the specification allows other lowercase letters: a name becomes a
 * directory in several clients' folders, and look-alike letters would let two skills pass for one.
 */
export const SKILL_NAME_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SKILL_NAME_MAX = 64;
export const DESCRIPTION_MAX = 1024;
export const COMPATIBILITY_MAX = 500;

/** Problems with a skill name, or [] when it is valid. `file`/`field` locate it for the message. */
export function nameProblems(name: string, file: string, field: string): SkillProblem[] {
  const out: SkillProblem[] = [];
  if (name.length === 0) out.push({ code: "name_empty", file, field, message: "name is empty; use 1–64 characters of a-z, 0-9 and -." });
  else if (name.length > SKILL_NAME_MAX) out.push({ code: "name_too_long", file, field, message: `name has ${name.length} characters; the limit is ${SKILL_NAME_MAX}.` });
  if (name.length > 0 && !SKILL_NAME_RE.test(name)) {
    out.push({ code: "name_invalid", file, field, message: `name ${JSON.stringify(name.slice(0, 80))} must use only lowercase a-z, digits and single hyphens, and not start or end with a hyphen.` });
  }
  return out;
}

/** SKILL.md split into its front matter (YAML text) and Markdown body. */
export interface SplitSkillMd {
  yaml: string;
  body: string;
}

/**
 * Splits SKILL.md at its front matter: the file must start with a line `---` and the YAML ends at the next
 * line that is exactly `---` (CRLF accepted). Returns a problem instead when there is none.
 */
export function splitFrontMatter(text: string): SplitSkillMd | SkillProblem {
  const file = "SKILL.md";
  if (text.startsWith("\ufeff")) return { code: "front_matter_bom", file, message: "SKILL.md starts with a byte-order mark; save it as UTF-8 without BOM." };
  const m = /^---\r?\n/.exec(text);
  if (!m) return { code: "front_matter_missing", file, message: "SKILL.md must start with YAML front matter: a line `---`, the fields (name, description…), then `---`." };
  const rest = text.slice(m[0].length);
  const end = /^---[ \t]*(?:\r?\n|$)/m.exec(rest);
  if (!end) return { code: "front_matter_unclosed", file, message: "SKILL.md front matter has no closing `---` line." };
  return { yaml: rest.slice(0, end.index), body: rest.slice(end.index + end[0].length) };
}

/**
 * Parses and validates SKILL.md against the specification: front matter present and a YAML mapping; only
 * the known fields; `name` valid and equal to the skill's directory name; `description` non-empty and at
 * most 1024 characters; `compatibility` at most 500; `metadata` a map of strings; `license` and
 * `allowed-tools` strings. Returns the manifest (when name and description are usable), the body and every
 * problem found (one per problem, not just the first); for a valid SKILL.md also `frontmatter`, the YAML
 * mapping as JSON exactly as the author wrote it (SEP-2640's entry `frontmatter`, verbatim: not the manifest).
 */
export function parseSkillMd(text: string, dirName: string): { manifest: SkillManifest | null; body: string; problems: SkillProblem[]; frontmatter?: Record<string, unknown> } {
  const file = "SKILL.md";
  const split = splitFrontMatter(text);
  if ("code" in split) return { manifest: null, body: text, problems: [split] };
  const problems: SkillProblem[] = [];
  // Aliases are refused outright: front matter never needs them, and they are how YAML bombs expand.
  const doc = parseDocument(split.yaml, { uniqueKeys: true, prettyErrors: false, schema: "core" });
  if (doc.errors.length > 0) {
    return { manifest: null, body: split.body, problems: doc.errors.map((e) => ({ code: "front_matter_yaml", file, message: `front matter is not valid YAML: ${e.message.split("\n")[0]}` })) };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 0 });
  } catch (err) {
    return { manifest: null, body: split.body, problems: [{ code: "front_matter_yaml", file, message: `front matter is not valid YAML: ${(err as Error).message}` }] };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { manifest: null, body: split.body, problems: [{ code: "front_matter_not_mapping", file, message: "front matter must be a YAML mapping of fields (name: …, description: …)." }] };
  }
  const fm = data as Record<string, unknown>;
  for (const key of Object.keys(fm)) {
    if (!KNOWN_FIELDS.has(key)) {
      problems.push({ code: "field_unknown", file, field: key, message: `unknown front-matter field ${JSON.stringify(key)}; the specification allows name, description, license, compatibility, metadata, allowed-tools (put hostgate's own declarations in agents/hostgate.yaml, other data under metadata).` });
    }
  }
  const str = (key: string, required: boolean): string | undefined => {
    const v = fm[key];
    if (v === undefined || v === null) {
      if (required) problems.push({ code: `${key}_missing`, file, field: key, message: `${key} is required.` });
      return undefined;
    }
    if (typeof v !== "string") {
      problems.push({ code: `${key.replace("-", "_")}_not_string`, file, field: key, message: `${key} must be a string, got ${Array.isArray(v) ? "a list" : typeof v}.` });
      return undefined;
    }
    return v;
  };
  const name = str("name", true);
  if (name !== undefined) {
    problems.push(...nameProblems(name, file, "name"));
    if (name !== dirName && SKILL_NAME_RE.test(name)) {
      problems.push({ code: "name_mismatch", file, field: "name", message: `name ${JSON.stringify(name)} must equal the skill's directory name ${JSON.stringify(dirName)}.` });
    }
  }
  const description = str("description", true);
  if (description !== undefined) {
    if (description.trim() === "") problems.push({ code: "description_empty", file, field: "description", message: "description is empty; say what the skill does and when to use it." });
    if (description.length > DESCRIPTION_MAX) problems.push({ code: "description_too_long", file, field: "description", message: `description has ${description.length} characters; the limit is ${DESCRIPTION_MAX}.` });
  }
  const license = str("license", false);
  const compatibility = str("compatibility", false);
  if (compatibility !== undefined && (compatibility.length === 0 || compatibility.length > COMPATIBILITY_MAX)) {
    problems.push({ code: "compatibility_length", file, field: "compatibility", message: `compatibility must be 1–${COMPATIBILITY_MAX} characters, got ${compatibility.length}.` });
  }
  let metadata: Record<string, string> | undefined;
  if (fm.metadata !== undefined && fm.metadata !== null) {
    if (typeof fm.metadata !== "object" || Array.isArray(fm.metadata)) {
      problems.push({ code: "metadata_not_mapping", file, field: "metadata", message: "metadata must be a mapping of string keys to string values." });
    } else {
      metadata = {};
      for (const [k, v] of Object.entries(fm.metadata as Record<string, unknown>)) {
        if (typeof v !== "string") problems.push({ code: "metadata_value_not_string", file, field: `metadata.${k}`, message: `metadata.${k} must be a string (quote numbers and dates: "1.0").` });
        else metadata[k] = v;
      }
    }
  }
  const allowed = str("allowed-tools", false);
  if (problems.length > 0 || name === undefined || description === undefined) return { manifest: null, body: split.body, problems };
  const manifest: SkillManifest = { name, description };
  if (license !== undefined) manifest.license = license;
  if (compatibility !== undefined) manifest.compatibility = compatibility;
  if (metadata !== undefined) manifest.metadata = metadata;
  if (allowed !== undefined) manifest.allowed_tools = allowed.split(/\s+/).filter((t) => t.length > 0);
  return { manifest, body: split.body, problems, frontmatter: fm };
}
