import { z } from "zod";
import { DIGEST_RE, type SkillDigest } from "./digest.ts";
import { SKILL_NAME_RE } from "./manifest.ts";
import { describeIssues } from "../errors.ts";

/** The lock file's name, beside the skills it pins (in the scope's base directory). */
export const LOCK_FILE = "skills-lock.json";

/** One locked skill: the exact tree (digest) and where it came from. */
export interface LockEntry {
  digest: SkillDigest;
  source: "registry" | "local";
  version?: string | undefined;
}

/** A lock file: version 1, skills by name. */
export interface LockFile {
  lock_version: 1;
  skills: Record<string, LockEntry>;
}

const LockSchema = z.object({
  lock_version: z.literal(1),
  skills: z.record(z.string().regex(SKILL_NAME_RE, "skill names are lowercase a-z, 0-9 and single hyphens"), z.object({
    digest: z.string().regex(DIGEST_RE, "a digest is sha256: and 64 lower-case hex digits"),
    source: z.enum(["registry", "local"]),
    version: z.string().min(1).max(64).optional(),
  }).strict()),
}).strict();

/** Parses lock file text; throws Error with every problem (`skills.x.digest: …`) when it is not a valid lock. */
export function parseLock(text: string): LockFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${LOCK_FILE} is not JSON: ${(err as Error).message}`);
  }
  const r = LockSchema.safeParse(raw);
  if (!r.success) throw new Error(`${LOCK_FILE} is not a valid lock file: ${describeIssues(r.error, "(top)")}`);
  return r.data as LockFile;
}

/**
 * The one text form of a lock: keys sorted at every level, two-space indentation, a final newline, and no
 * timestamps, so the same pins always give the same bytes (clean diffs, reproducible syncs).
 */
export function formatLock(lock: LockFile): string {
  const sortDeep = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortDeep);
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, sortDeep(x)]));
    }
    return v;
  };
  return `${JSON.stringify(sortDeep(lock), null, 2)}\n`;
}
