import { homedir } from "node:os";
import { join } from "node:path";
import { CedarPolicyEngine } from "../adapters/policy-cedar/cedar-engine.ts";
import { PolicyConfigSchema, type PolicyConfig } from "../config/hosts.ts";
import { riskOnlyPolicy } from "../core/policy/risk-only.ts";
import type { PolicyEngine } from "../ports/policy-engine.ts";
import type { z } from "zod";
import type { DaemonFeature, Finding } from "./feature.ts";

/**
 * The policy engine as a service of its own (issue 20): built on first use, shared by every path that judges
 * (exec_on_host, RunCommand, plan_command, skills launches, reads of remote hosts). A directory that does not
 * load fails that use with its error (fail closed) and is tried again at the next use, so fixing the file is
 * enough; once loaded, SIGHUP reloads it in place (the old set stays on error).
 */
export interface PolicyService extends DaemonFeature {
  /** True when `policy.dir` is set. */
  configured: boolean;
  /** The configured engine (null: none configured). Throws HostgateError `invalid_params` when the directory does not load. */
  engine(): Promise<CedarPolicyEngine | null>;
  /** The engine for command lines judged without a host: the configured one, else the risk-only default. */
  forCommands(): Promise<PolicyEngine>;
}

/** The policy service from `policy.*`; `allowUnverified` (exec.allow_unverified) only shapes doctor's wording. */
export function policyService(raw: z.input<typeof PolicyConfigSchema> | undefined, opts: { allowUnverified: boolean; home?: string }): PolicyService {
  const pol: PolicyConfig = PolicyConfigSchema.parse(raw ?? {});
  const home = opts.home ?? homedir();
  const dir = pol.dir?.startsWith("~/") ? join(home, pol.dir.slice(2)) : pol.dir;
  let loaded: CedarPolicyEngine | null = null;
  const engine = (): Promise<CedarPolicyEngine | null> => {
    if (!dir) return Promise.resolve(null);
    // A directory that does not load rejects this use (the executor's throw) and is tried again at the next.
    return new Promise((resolve) => {
      loaded ??= CedarPolicyEngine.load(dir);
      resolve(loaded);
    });
  };
  const doctor = async (): Promise<Finding[]> => {
    if (!dir) {
      return [{ level: opts.allowUnverified ? "warn" : "ok", check: "policy", message: opts.allowUnverified ? "NO POLICY and exec.allow_unverified is ON: any command the risk engine allows runs on remote hosts. Not for AI clients." : "no policy configured: exec_on_host refuses every command and remote hosts cannot be read (set policy.dir)" }];
    }
    const e = await engine();
    const s = e!.status();
    const out: Finding[] = [s.last_error ? { level: "warn", check: "policy", message: `last reload failed: ${s.last_error}` } : { level: "ok", check: "policy", message: `${s.policies} Cedar policies from ${s.dir}, loaded ${s.loaded_at}` }];
    if (opts.allowUnverified) out.push({ level: "warn", check: "exec.allow_unverified", message: "exec.allow_unverified is ON (it has no effect while a policy is loaded, but would if policy.dir were removed)" });
    return out;
  };
  return {
    name: "policy",
    configured: dir !== undefined,
    engine,
    forCommands: async () => (await engine()) ?? riskOnlyPolicy,
    doctor,
    reload: () => {
      if (!dir) return Promise.resolve("SIGHUP: no policy.dir configured; nothing to reload");
      if (!loaded) return Promise.resolve("SIGHUP: the policy engine is not loaded yet; policies load at their first use");
      const r = loaded.reload();
      return Promise.resolve(r.ok ? `SIGHUP: reloaded ${r.policies} policies from ${loaded.dir}` : `SIGHUP: policy reload FAILED, keeping the old set: ${r.error}`);
    },
  };
}
