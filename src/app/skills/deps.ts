import type { Sha256 } from "../../core/skills/digest.ts";
import type { AuditStore } from "../../ports/audit-store.ts";
import type { Crypto } from "../../ports/crypto.ts";
import type { Clock } from "../../ports/host-probe.ts";
import type { LocalSkillSource, SkillInstaller, SkillRegistry, SkillStore } from "../../ports/skill-store.ts";
import type { ExecDeps } from "./exec.ts";

/** A gate as the daemon holds it: on or off, and why (for skills_diagnose and the start notice). */
export interface Gate {
  on: boolean;
  reason: string;
}

/**
 * What the skills use cases need, built by the composition root. `bases` are the install bases per scope:
 * the user's home and the project folder for the embedded daemon; only what the config names for the system
 * daemon (null: that scope is unavailable, with the reason in `baseReason`).
 */
export interface SkillsDeps {
  local: LocalSkillSource;
  registry: SkillRegistry | null;
  store: SkillStore;
  installer: SkillInstaller;
  sha256: () => Sha256;
  crypto: Crypto;
  clock: Clock;
  audit(): AuditStore;
  bases: { user: string | null; project: string | null };
  gates: { install: Gate; exec: Gate };
  exec: ExecDeps | null;
  /** How long one scan of the local roots is reused by search and route (ms). */
  rescanMs: number;
}
