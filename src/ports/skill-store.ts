import type { SkillDigest } from "../core/skills/digest.ts";
import type { FileDigest } from "../core/skills/entry.ts";
import type { LockFile } from "../core/skills/lock.ts";
import type { Skill } from "../core/skills/skill.ts";
import type { TreeFile } from "../core/skills/tree.ts";

/** How one configured skills root looked at the last scan. */
export interface RootStatus {
  path: string;
  status: "ok" | "missing" | "unreadable";
  message?: string | undefined;
}

/** A skill found in a local root, with where it lives (for provenance). */
export interface LocalSkill {
  skill: Skill;
  root: string;
  dir: string;
}

/** One scan of the local roots: every skill found (valid or not) and each root's state. */
export interface LocalScan {
  skills: LocalSkill[];
  roots: RootStatus[];
}

/**
 * The skills that live in the configured local roots (read-only: hostgate never writes there). A root is a
 * directory whose subdirectories are skills (`<root>/<name>/SKILL.md`).
 */
export interface LocalSkillSource {
  scan(): Promise<LocalScan>;
  /** The files of one skill directory, read again now (for digest checks before install or exec). */
  readFiles(dir: string): Promise<TreeFile[]>;
}

/** The registry's index: each skill's description, latest version and version → digest pins. */
export interface RegistryIndex {
  skills: Record<string, { description: string; latest: string; versions: Record<string, SkillDigest> }>;
}

/** One release record: the digest it pins and where its archive is (relative to the registry base). */
export interface ReleaseRecord {
  name: string;
  version: string;
  digest: SkillDigest;
  archive: string;
  description: string;
}

/**
 * A registry of digest-pinned releases served as static files (HTTP(S) or a path): `index.json`,
 * `releases/<name>/<version>.json`, and tar archives. Errors are HostgateError `registry_unreachable`
 * (timeout, refused), `registry_error` (bad answer), `digest_mismatch`, `archive_refused`.
 */
export interface SkillRegistry {
  /** The base URL or path, for provenance and diagnose. */
  readonly location: string;
  index(): Promise<RegistryIndex>;
  release(name: string, version: string): Promise<ReleaseRecord>;
  /** Downloads and unpacks a release in memory; the tree hashes to `record.digest` or this throws. */
  fetchTree(record: ReleaseRecord): Promise<TreeFile[]>;
}

/**
 * The content-addressed, read-only local store: one directory per digest (`<dir>/sha256/<hex>/`), written
 * once after the tree is verified, then never changed (files 0444, directories 0555).
 */
export interface SkillStore {
  readonly dir: string;
  has(digest: SkillDigest): Promise<boolean>;
  /** The tree for a digest, re-hashed on read; null when absent. Throws when the stored tree was altered. */
  get(digest: SkillDigest): Promise<TreeFile[] | null>;
  /** Adds a verified tree (no-op when present). Throws `digest_mismatch` when the files do not hash to it. */
  put(digest: SkillDigest, files: readonly TreeFile[]): Promise<string>;
  /** The directory holding a stored digest. */
  pathOf(digest: SkillDigest): string;
}

/** What an install target holds now. */
export type TargetState =
  | { state: "absent" }
  | { state: "present"; digest: SkillDigest }
  /**
   * Something hostgate will not replace: a link or another owner on the way, a non-directory, a folder
   * hostgate did not create or that changed since, an unreadable or invalid tree.
   */
  | { state: "blocked"; reason: string };

/** The lock file of a base: absent, present, or blocked (a link or another owner on the way). `path` as resolved. */
export type LockState =
  | { state: "absent"; path: string }
  | { state: "present"; path: string; lock: LockFile }
  | { state: "blocked"; path: string; reason: string };

/**
 * The client folders installs write to (`<base>/.agents/skills/<name>`, `<base>/.claude/skills/<name>`) and
 * the lock file of a base (`<base>/.agents/skills-lock.json`). `base` is the scope's folder as configured;
 * `rel` a path relative to it. Implementations resolve the base once per call and never follow a link under
 * it (adapters/skills-install.ts). Writes are atomic per skill (a temporary sibling renamed into place).
 */
export interface SkillInstaller {
  /** Where the base resolves now (its real path), for plans. Throws `unavailable` when it cannot be opened. */
  resolveBase(base: string): Promise<string>;
  inspect(base: string, rel: string): Promise<TargetState>;
  /** Installs `files` (which hash to `digest`) at `rel`; `confirm.plan_changed` when the target is blocked now. */
  install(base: string, rel: string, files: readonly TreeFile[], digest: SkillDigest): Promise<void>;
  readLock(base: string): Promise<LockState>;
  writeLock(base: string, lock: LockFile): Promise<void>;
}

/**
 * One exec grant: an admin allowed this entrypoint of this exact tree to be run by skills_execute. `digest` is
 * the tree digest; `files` the per-file digest set (path, `sha256:` of the raw bytes, size) it was given for,
 * the set a SEP-2640 entry lists (absent in grants recorded before issue 25).
 */
export interface ExecGrant {
  name: string;
  digest: SkillDigest;
  entrypoint: string;
  granted_by: string;
  granted_at: string;
  files?: FileDigest[];
}

/** The daemon's grants (written only through the admin socket). */
export interface GrantStore {
  list(): Promise<ExecGrant[]>;
  add(grant: ExecGrant): Promise<void>;
  /** Returns whether a grant was removed. */
  remove(digest: SkillDigest, entrypoint: string): Promise<boolean>;
}

/** What {@link ExecRunner.run} starts: an argv, never a shell line. */
export interface RunRequest {
  argv: string[];
  env: Record<string, string>;
  timeoutMs: number;
  /** Bytes of stdout and of stderr kept each; the rest is drained and counted. */
  captureBytes: number;
  signal?: AbortSignal | undefined;
}

/** How a run ended. `cancelled`: the signal fired; the whole process group was killed. */
export interface RunOutcome {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  cancelled: boolean;
  duration_ms: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  stdout_bytes: number;
  stderr_bytes: number;
  /** What bounded the run: its own PID namespace (everything it started ends with it) or only its process group. */
  confinement: "pid_namespace" | "process_group";
}

/**
 * Runs one program in its own process group (and PID namespace where the host allows it), in a fresh empty
 * working directory, with only the given environment and stdin from /dev/null; a run is over when the main
 * process exits (plus a short drain deadline for its pipes); on timeout, cancel or daemon shutdown it kills
 * the whole group.
 */
export interface ExecRunner {
  run(req: RunRequest): Promise<RunOutcome>;
  /** Kills every run still going (daemon shutdown). */
  killAll(): void;
}
