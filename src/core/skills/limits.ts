/**
 * Size caps for skills (issue 11, after reference/skills-server.txt). Tool-argument caps (64 KiB arguments,
 * 1 KiB query, 1 KiB path, 1 MiB answer) are the project-wide ones in core/limits.ts; these are the skill
 * specific ones. Bytes are UTF-8 bytes.
 */
export const SKILL_LIMITS = {
  /** A reference (`name`, `name@version`, `name@sha256:<hex>`). */
  refBytes: 512,
  /** `skills_read` answers at most this much of one file. */
  readBytes: 256 * 1024,
  /** An install or sync `scope`. */
  scopeBytes: 64,
  /** How many `runtimes` one install or sync may name, and the size of each. */
  runtimes: 8,
  runtimeBytes: 64,
  /** `skills_execute`: entrypoint name, argument count, size of one argument, timeout range (seconds). */
  entrypointBytes: 128,
  execArgs: 64,
  execArgBytes: 4096,
  execTimeoutMaxSeconds: 1800,
  execTimeoutDefaultSeconds: 60,
  /** stdout and stderr of one run are each kept up to this size (after which `truncated` is set). */
  execOutputBytes: 128 * 1024,
  /** SKILL.md itself. */
  skillMdBytes: 256 * 1024,
  /** One file of a skill tree, the whole tree, and how many files and how deep. */
  fileBytes: 8 * 1024 * 1024,
  treeBytes: 32 * 1024 * 1024,
  treeFiles: 2000,
  treeDepth: 16,
  /** A downloaded archive, before decompression. */
  archiveBytes: 32 * 1024 * 1024,
  /**
   * Decompressed tar bytes read from one archive, every byte counted (headers, refused entries, padding):
   * the tree cap plus room for 2,000 files' headers, pax records and block padding (issue 21, T3-23).
   */
  tarBytes: 40 * 1024 * 1024,
  /** A pax extended header or GNU long-name record. */
  tarMetaBytes: 64 * 1024,
  /** Wall-clock budget for unpacking one archive off the event loop (ms). */
  unpackMs: 10_000,
  /** A registry index or release record. */
  recordBytes: 4 * 1024 * 1024,
} as const;
