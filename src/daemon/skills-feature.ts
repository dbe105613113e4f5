import { nodeCrypto } from "../adapters/crypto-node.ts";
import type { SkillsHandle } from "../app/skills/handlers.ts";
import { skillResourceProvider } from "../app/skills/resources.ts";
import type { SkillsService } from "../app/skills/service.ts";
import type { Config } from "../config/schema.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { Clock } from "../ports/host-probe.ts";
import type { PolicyEngine } from "../ports/policy-engine.ts";
import type { DaemonFeature } from "./feature.ts";
import type { DaemonMode } from "./paths.ts";
import { skillsSetup, type SkillGateFlags } from "./skills-gates.ts";

/** The skills feature: the gates now (cheap, read once), the service and its adapters on first use. */
export interface SkillsFeature extends DaemonFeature {
  handle: SkillsHandle;
}

/**
 * Builds the skills feature; a skills launch is judged by the risk engine and `policy` (the policy service's
 * engine for command lines, loaded on first use).
 */
export function composeSkillsFeature(config: Config, opts: { mode: DaemonMode; state: string; flags: SkillGateFlags; audit: () => AuditStore; clock: Clock; policy: () => Promise<PolicyEngine> }): SkillsFeature {
  const setup = skillsSetup(config, opts.mode, opts.flags);
  let service: Promise<SkillsService> | null = null;
  const handle: SkillsHandle = {
    gates: setup.gates,
    service: () => (service ??= Promise.all([import("./skills.ts"), import("../app/skills/launch-policy.ts"), import("../adapters/shell-parser.ts")]).then(([m, { judgeSkillLaunch }, { loadRiskEngine }]) => {
      const engine = loadRiskEngine();
      return m.composeSkills(config, { mode: opts.mode, stateDir: opts.state, setup, audit: opts.audit, crypto: nodeCrypto, clock: opts.clock, assess: async (launch) => judgeSkillLaunch(launch, { engine, policy: await opts.policy() }) });
    })),
    close: () => { void service?.then((s) => { s.close(); }); },
  };
  return { name: "skills", handle, resources: [skillResourceProvider(() => handle.service())], close: () => { handle.close(); } };
}
