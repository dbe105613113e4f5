import { exposureSettings } from "../config/exposure.ts";
import { nodeCrypto } from "../adapters/crypto-node.ts";
import { openAiPlanner } from "../adapters/planner-openai.ts";
import { audit } from "../app/audit-log.ts";
import { DaemonService, type ServiceExtras } from "../app/daemon-service.ts";
import type { DaemonDeps, StepProposer } from "../app/deps.ts";
import { HostRegistry, type RemoteContextFactory } from "../app/hosts.ts";
import { localCommandHost, remoteSource } from "../app/hosts-handlers.ts";
import { ResourceRegistry } from "../app/resources.ts";
import { LOCAL_HOST } from "../core/host-id.ts";
import type { Action } from "../core/catalogue/action.ts";
import type { WebAuthn } from "../ports/webauthn.ts";
import { ttyNrOfStat, groupsOfStatus, type SameUserPolicy } from "../core/approval.ts";
import { CATALOGUE } from "../core/catalogue/index.ts";
import { localUnavailable } from "../app/local-availability.ts";
import { systemdUnavailableReason } from "./select-backend.ts";
import type { Config } from "../config/schema.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { Clock, HostProbe } from "../ports/host-probe.ts";
import type { TransactionStore } from "../ports/transaction-store.ts";
import type { DaemonFeature } from "./feature.ts";
import { composeHostsFeature } from "./hosts-feature.ts";
import { composeLocal } from "./local.ts";
import type { DaemonMode } from "./paths.ts";
import { policyService } from "./policy.ts";
import { composeSkillsFeature } from "./skills-feature.ts";
import { composeConsoleFeature } from "./console/feature.ts";
import type { PasskeyBackend } from "./console/passkey-backend.ts";
import { approvalOptions, approveWithPasskey, enrollmentFinish, enrollmentOptions, listPasskeys } from "../app/passkeys.ts";
import type { SkillGateFlags } from "./skills-gates.ts";
import { composeStores } from "./stores.ts";
import { revertTimer } from "./reverts.ts";
import type { RevertOutcome } from "../app/revert.ts";
import type { Tracer } from "../core/trace.ts";

/** Test and embedding overrides for {@link composeDaemon}. */
export interface ComposeOptions {
  mode: DaemonMode;
  clock?: Clock;
  host?: HostProbe;
  catalogue?: readonly Action[];
  llm?: StepProposer | null;
  extras?: ServiceExtras;
  /** Lines for stderr at start (backend selection, warnings). Default: write them. */
  announce?: (line: string) => void;
  /** Skills gates asked for at start (`--allow-install`, `--allow-exec`). */
  skills?: SkillGateFlags;
  /**
   * Builds the typed context of an inventory host (files, systemd, mutate) on first use. Absent: the SSH ports
   * over the hosts feature's pool (daemon/remote-contexts.ts); null: inventory hosts offer `exec` alone
   * (approved commands), as before the SSH ports were wired.
   */
  remoteContexts?: RemoteContextFactory | null;
  /**
   * The passkey backend of the approval console (issue 23). Absent: app/passkeys.ts. null: the console serves
   * without passkeys (approval in a terminal only); tests may pass a stand-in.
   */
  passkeys?: PasskeyBackend | null;
  /** This process's tracer (daemon/tracing.ts; issue 25). Absent: tracing off. */
  tracer?: Tracer;
}

/** A composed daemon: its service, where it keeps state and sockets, and how to stop it. */
export interface ComposedDaemon {
  service: DaemonService;
  stateDir: string;
  runtimeDir: string;
  /** SIGHUP: every feature reloads what it can (the policy directory: the old set stays on error); the lines say what happened. */
  reloadPolicy(): Promise<string>;
  /** Opens the stores now (the system daemon does this at start; embedded mode waits for the first need). */
  openStores(): { transactions: TransactionStore; audit: AuditStore };
  /**
   * Confirm-or-auto-revert's start-up pass (issue 24), begun by composeDaemon: steps a stopped daemon left
   * awaiting their confirm are restored; resolves to what was restored.
   */
  reverts: Promise<RevertOutcome[]>;
  close(): Promise<void>;
}

/** The console's passkey backend: app/passkeys.ts (issue 23), the functions of the contract between its two halves. */
const PASSKEYS: PasskeyBackend = { enrollmentOptions, enrollmentFinish, approvalOptions, approveWithPasskey, listPasskeys };

/** The WebAuthn port, its library loaded on first use (a front's cold start never needs it; issue 14). */
const lazyWebAuthn: WebAuthn = {
  registrationOptions: async (...a) => (await import("../adapters/webauthn.ts")).simpleWebAuthn.registrationOptions(...a),
  verifyRegistration: async (...a) => (await import("../adapters/webauthn.ts")).simpleWebAuthn.verifyRegistration(...a),
  authenticationOptions: async (...a) => (await import("../adapters/webauthn.ts")).simpleWebAuthn.authenticationOptions(...a),
  verifyAuthentication: async (...a) => (await import("../adapters/webauthn.ts")).simpleWebAuthn.verifyAuthentication(...a),
};

/**
 * The composition root shared by `hostgate daemon` and the embedded daemon: the only place that picks
 * adapters for the ports. It joins the features — local (daemon/local.ts), stores (stores.ts), policy
 * (policy.ts), hosts (hosts-feature.ts), skills (skills-feature.ts) — each bringing its resources, doctor
 * findings, reload and close; the use cases read them through DaemonDeps.
 */
export async function composeDaemon(config: Config, opts: ComposeOptions): Promise<ComposedDaemon> {
  const announce = opts.announce ?? ((line: string) => process.stderr.write(`hostgate: ${line}\n`));
  const clock = opts.clock ?? { now: () => Date.now() };
  const local = await composeLocal(config, { mode: opts.mode, clock, announce, ...(opts.host ? { host: opts.host } : {}) });
  const { ctx, backend, identity } = local;
  // Same-user approvals (separation none): refused by the system daemon, allowed (and labelled) embedded.
  const sameUser: SameUserPolicy = config.approval.same_user ?? (opts.mode === "system" ? "deny" : "allow");
  const facts: Record<string, string> = {
    mode: opts.mode === "system" ? "system daemon" : "embedded daemon",
    pid: String(process.pid),
    backend: `${backend.type} (${backend.reason})`,
    backend_type: backend.type,
    ...(backend.warning ? { backend_warning: backend.warning } : {}),
    state_dir: local.state,
    runtime_dir: local.runtime,
    logs_readable: local.logs_readable,
    daemon_uid: String(process.getuid?.() ?? -1),
    approval_same_user: sameUser,
    ...(config.approval.passkey_required_from ? { approval_passkey_required_from: config.approval.passkey_required_from } : {}),
  };
  const stores = composeStores(config, { mode: opts.mode, state: local.state, config_dir: local.config_dir, clock, facts, announce });
  if (stores.checkpoint_copy) (ctx.protected_paths as string[]).push(stores.checkpoint_copy);
  const policy = policyService(config.policy, { allowUnverified: config.exec?.allow_unverified ?? false });
  const hostsFeature = composeHostsFeature(config, {
    mode: opts.mode,
    state: local.state,
    hideDirs: ctx.protected_paths,
    policy,
    ...(opts.tracer ? { tracer: opts.tracer } : {}),
    onTrustedFirstUse: (name, fingerprint) => {
      void audit(stores.audit(), "exec.host_key_trusted", "daemon", { name, fingerprint, reason: "exec.host_keys: tofu" }, true).catch(() => undefined);
    },
  });
  // RunCommand on the daemon's own host: approved commands through the local executor (issue 19).
  ctx.remote = localCommandHost(() => hostsFeature.get());
  const skills = composeSkillsFeature(config, { mode: opts.mode, state: local.state, flags: opts.skills ?? { install: false, exec: false }, audit: () => stores.audit(), clock, policy: () => policy.forCommands() });
  // The approval console (issue 23): reads the composed deps late; started below when console.enabled.
  let composedDeps: DaemonDeps | null = null;
  const consoleFeature = composeConsoleFeature(config, { mode: opts.mode, deps: () => composedDeps!, passkeys: opts.passkeys === undefined ? PASSKEYS : opts.passkeys, announce });
  const features: readonly DaemonFeature[] = [local, stores, policy, hostsFeature, skills, consoleFeature.feature];

  const hosts = new HostRegistry(remoteSource(() => hostsFeature.get(), ctx, opts.remoteContexts === undefined ? hostsFeature.remoteContexts({ logs_readable: ctx.logs_readable, clock }) : opts.remoteContexts), () => clock.now());
  hosts.register({ id: LOCAL_HOST, hostname: identity.hostname, ctx, simulated_systemd: backend.type === "mock" });
  const resources = new ResourceRegistry();
  for (const f of features) for (const r of f.resources ?? []) resources.register(r);
  const deps: DaemonDeps = {
    skills: skills.handle,
    ctx,
    hosts,
    resources,
    // Every path that judges a command answers to the configured policy: without a policy directory the
    // risk-only default; with one, the policy service's Cedar engine (exec_on_host's), for local too.
    policy: () => policy.forCommands(),
    catalogue: opts.catalogue ?? CATALOGUE,
    hostname: identity.hostname,
    clock,
    crypto: nodeCrypto,
    transactions: () => stores.transactions(),
    audit: () => stores.audit(),
    hostsFeature: () => hostsFeature.get(),
    features,
    llm: opts.llm !== undefined ? opts.llm : config.planner.mode === "llm" && config.planner.llm
      ? openAiPlanner({ ...config.planner.llm, api_key: config.planner.llm.api_key_env ? process.env[config.planner.llm.api_key_env] : undefined })
      : null,
    facts,
    local_unavailable: await localUnavailable(opts.catalogue ?? CATALOGUE, ctx.host, (await systemdUnavailableReason(config.backend, ctx.host)) === null),
    console: consoleFeature.control,
    ...(consoleFeature.notifier ? { notifier: consoleFeature.notifier } : {}),
    confirm_window_s: config.approval.confirm_window_s,
    approval: { same_user: sameUser, passkey_required_from: config.approval.passkey_required_from ?? null, daemon_mode: opts.mode },
    passkeys: () => stores.passkeys(),
    webauthn: lazyWebAuthn,
    exposure: exposureSettings(config),
    ...(opts.tracer ? { tracer: opts.tracer } : {}),
    // The approving process's controlling terminal, read by the daemon itself (never claimed by the client).
    ttyOf: async (pid: number) => {
      try {
        return ttyNrOfStat(await ctx.host.readText(`/proc/${pid}/stat`));
      } catch {
        return null;
      }
    },
    // The front's supplementary groups, for doctor's separation check (a group may open the admin socket).
    groupsOf: async (pid: number) => {
      try {
        return groupsOfStatus(await ctx.host.readText(`/proc/${pid}/status`));
      } catch {
        return null;
      }
    },
  };
  composedDeps = deps;
  await consoleFeature.autostart().catch((err: unknown) => { announce(`warning: the approval console did not start: ${(err as Error).message}`); });
  const reverts = revertTimer(deps, local.state, announce);
  deps.scheduleRevert = (deadline) => { reverts.schedule(deadline); };
  const startPass = reverts.start().catch((err: unknown) => { announce(`start-up revert pass failed: ${(err as Error).message}`); return []; });
  return {
    reverts: startPass,
    service: new DaemonService(deps, opts.extras ?? {
      planCommand: async (input, caller) => {
        const [{ assessCommand }, { loadRiskEngine }] = await Promise.all([import("../app/assess-command.ts"), import("../adapters/shell-parser.ts")]);
        const { execDecisionFor } = await import("../app/hosts-handlers.ts");
        return assessCommand(input, { engine: loadRiskEngine(), policy: await policy.forCommands(), caller, targetPolicy: (a, command, shell, target, who) => execDecisionFor(deps, a, command, shell, target, who) });
      },
    }),
    stateDir: local.state,
    runtimeDir: local.runtime,
    openStores: () => ({ transactions: stores.transactions(), audit: stores.audit() }),
    reloadPolicy: async () => {
      const lines: string[] = [];
      for (const f of features) {
        const line = await f.reload?.();
        if (line) lines.push(line);
      }
      return lines.join("; ");
    },
    close: async () => {
      // Reverse order of composition: the hosts' connections and the skills service before the stores they audit to.
      reverts.close();
      await startPass;
      hosts.close();
      for (const f of [...features].reverse()) await f.close?.();
    },
  };
}
