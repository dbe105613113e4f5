import { utf8Length } from "../limits.ts";
import { SKILL_LIMITS } from "./limits.ts";

/** Where an install goes: the user's home folders, or the project's. */
export type Scope = "user" | "project";

/**
 * The folder (relative to the scope's base: the home directory or the project directory) each client runtime
 * reads skills from. `.agents/skills` is the shared location of the open format (Codex, Gemini CLI, OpenCode,
 * Cursor and others read it); Claude Code reads `.claude/skills`.
 */
export const RUNTIME_DIRS: Readonly<Record<string, string>> = {
  agents: ".agents/skills",
  claude: ".claude/skills",
  codex: ".agents/skills",
  cursor: ".agents/skills",
  gemini: ".agents/skills",
  opencode: ".agents/skills",
};

/** Runtimes used when a call names none. */
export const DEFAULT_RUNTIMES = ["agents", "claude"] as const;

/**
 * Checks `scope` (≤ 64 B, `user` | `project`) and `runtimes` (≤ 8, each ≤ 64 B, known) and returns the
 * distinct relative folders to install into, sorted. Throws Error saying what is accepted.
 */
export function installFolders(scope: string, runtimes: readonly string[] | undefined): { scope: Scope; runtimes: string[]; folders: string[] } {
  if (utf8Length(scope) > SKILL_LIMITS.scopeBytes) throw new Error(`scope is at most ${SKILL_LIMITS.scopeBytes} bytes.`);
  if (scope !== "user" && scope !== "project") throw new Error(`scope must be "user" or "project", got ${JSON.stringify(scope.slice(0, 64))}.`);
  const list = runtimes === undefined || runtimes.length === 0 ? [...DEFAULT_RUNTIMES] : [...runtimes];
  if (list.length > SKILL_LIMITS.runtimes) throw new Error(`at most ${SKILL_LIMITS.runtimes} runtimes, got ${list.length}.`);
  for (const r of list) {
    if (utf8Length(r) > SKILL_LIMITS.runtimeBytes) throw new Error(`a runtime name is at most ${SKILL_LIMITS.runtimeBytes} bytes.`);
    if (!Object.hasOwn(RUNTIME_DIRS, r)) throw new Error(`unknown runtime ${JSON.stringify(r.slice(0, 64))}; known: ${Object.keys(RUNTIME_DIRS).join(", ")}.`);
  }
  const distinct = [...new Set(list)].sort();
  return { scope, runtimes: distinct, folders: [...new Set(distinct.map((r) => RUNTIME_DIRS[r]!))].sort() };
}
