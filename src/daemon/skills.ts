import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fileGrantStore, processRunner } from "../adapters/skills-exec.ts";
import { fsSkillStore, localSkillSource, sha256 } from "../adapters/skills-fs.ts";
import { fsSkillInstaller } from "../adapters/skills-install.ts";
import { openRegistry } from "../adapters/skills-registry.ts";
import type { ExecDeps } from "../app/skills/exec.ts";
import type { SkillsDeps } from "../app/skills/deps.ts";
import { SkillsService } from "../app/skills/service.ts";
import type { Config } from "../config/schema.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { Crypto } from "../ports/crypto.ts";
import type { Clock } from "../ports/host-probe.ts";
import type { DaemonMode } from "./paths.ts";
import type { SkillsSetup } from "./skills-gates.ts";

/** The skills hostgate ships (`<package>/skills`), found from this file in the source tree or the bundle. */
export function shippedSkillsDir(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, "skills");
    if (existsSync(join(candidate, "disk-full", "SKILL.md"))) return candidate;
    dir = dirname(dir);
  }
  return null;
}

/**
 * Where skills live (docs/skills.md):
 * - embedded daemon (runs as the user): the shipped skills, then `skills.roots` from the config, then the
 *   user's own folders `~/.agents/skills` and `~/.claude/skills`; installs go to the home directory (user
 *   scope) or the folder hostgate was started in (project scope).
 * - system daemon (root): the shipped skills and `skills.roots` only, never a home directory (a root process
 *   must not take scripts from folders a user can write); install bases only when `skills.install.*` names them.
 * The store and the grants live in the daemon's state directory.
 */
export function skillRoots(config: Config, mode: DaemonMode, env: NodeJS.ProcessEnv = process.env): string[] {
  const shipped = shippedSkillsDir();
  const roots = [...(shipped ? [shipped] : []), ...config.skills.roots];
  if (mode === "embedded" && config.skills.user_roots) {
    const home = env.HOME || homedir();
    roots.push(join(home, ".agents", "skills"), join(home, ".claude", "skills"));
  }
  return [...new Set(roots.map((r) => resolve(r)))];
}

/**
 * Builds the skills service for a daemon: local roots (see {@link skillRoots}), the registry when configured,
 * the content-addressed store, the grants and the record of installed folders in the state directory, the
 * process runner for exec.
 */
export function composeSkills(config: Config, opts: { mode: DaemonMode; stateDir: string; setup: SkillsSetup; audit: () => AuditStore; crypto: Crypto; clock: Clock; assess: ExecDeps["assess"]; env?: NodeJS.ProcessEnv }): SkillsService {
  const env = opts.env ?? process.env;
  const deps: SkillsDeps = {
    local: localSkillSource(skillRoots(config, opts.mode, env)),
    registry: config.skills.registry ? openRegistry(config.skills.registry.url, { timeoutMs: config.skills.registry.timeout_ms }) : null,
    store: fsSkillStore(join(opts.stateDir, "skills", "store")),
    installer: fsSkillInstaller({ recordPath: join(opts.stateDir, "skills", "installed.json") }),
    sha256,
    crypto: opts.crypto,
    clock: opts.clock,
    audit: opts.audit,
    bases: opts.setup.bases,
    gates: opts.setup.gates,
    exec: { grants: fileGrantStore(join(opts.stateDir, "skills", "grants.json")), runner: processRunner(), assess: opts.assess },
    rescanMs: config.skills.rescan_ms,
  };
  return new SkillsService(deps);
}
