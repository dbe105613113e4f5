import { homedir } from "node:os";
import type { Gate } from "../app/skills/deps.ts";
import type { Config } from "../config/schema.ts";
import type { DaemonMode } from "./paths.ts";

/** Gate flags as given at start (`--allow-install`, `--allow-exec`); the config's skills.allow_* count too. */
export interface SkillGateFlags {
  install: boolean;
  exec: boolean;
}

/** Install bases per scope and the two gates, decided once at start without loading any skills code. */
export interface SkillsSetup {
  bases: { user: string | null; project: string | null };
  gates: { install: Gate; exec: Gate };
}

/**
 * The install bases (embedded: the home folder and the folder hostgate started in; system daemon: only what
 * skills.install names) and the gates. A gate asked for whose prerequisite is missing is off, with the reason
 * (the front warns `--allow-install has no effect: …`).
 */
export function skillsSetup(config: Config, mode: DaemonMode, flags: SkillGateFlags, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): SkillsSetup {
  const home = env.HOME || homedir();
  const bases = mode === "embedded"
    ? { user: config.skills.install.user_base ?? home, project: config.skills.install.project_base ?? cwd }
    : { user: config.skills.install.user_base ?? null, project: config.skills.install.project_base ?? null };
  const wantInstall = flags.install || config.skills.allow_install;
  const wantExec = flags.exec || config.skills.allow_exec;
  const install: Gate = !wantInstall ? { on: false, reason: "not enabled (--allow-install or skills.allow_install)" }
    : bases.user === null && bases.project === null ? { on: false, reason: "no install folder: the system daemon needs skills.install.user_base or skills.install.project_base" }
    : { on: true, reason: "enabled" };
  const exec: Gate = !wantExec ? { on: false, reason: "not enabled (--allow-exec or skills.allow_exec)" }
    : { on: true, reason: "enabled; runs only entrypoints an administrator granted (hostgate skills grants add)" };
  return { bases, gates: { install, exec } };
}
