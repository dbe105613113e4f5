/** One skill as listed (name and description come from its manifest; host-derived, untrusted). */
export interface SkillSummary {
  name: string;
  description: string;
  version?: string;
  /** Where it lives, e.g. a directory path (for humans; never a capability). */
  location: string;
}

/** One file of a skill, read for the model. */
export interface SkillFile {
  skill: string;
  /** Path inside the skill, `/`-separated, no `..`. */
  path: string;
  mimeType: string;
  text: string;
  /** True when the file was cut at the size cap. */
  truncated: boolean;
}

/**
 * Where skills are kept (reference: skills-server). Minimal surface the skills issue extends: list, read a
 * file (SKILL.md by default), install from a source. Reads are size-capped and confined to the skill's
 * directory (symlinks out of it are refused: `invalid_path`); unknown skills are `unknown_skill`.
 * `install` is opt-in and runs only behind a confirm token checked by the caller, never here.
 */
export interface SkillStore {
  list(opts?: { query?: string; limit?: number }): Promise<SkillSummary[]>;
  read(name: string, path?: string): Promise<SkillFile>;
  install(source: string, opts: { name?: string; signal?: AbortSignal }): Promise<SkillSummary>;
}
