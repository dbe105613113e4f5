import { existsSync, realpathSync } from "node:fs";
import { exposureSettings } from "../config/exposure.ts";
import { join } from "node:path";
import { checkpointCopyPath, type CheckpointCopyTarget } from "../adapters/audit-checkpoint-copy.ts";
import { pinPath } from "../adapters/audit-pin.ts";
import { openAuditStore } from "./audit-store.ts";
import { ensureAppendOnly } from "../adapters/append-only.ts";
import { nodeCrypto } from "../adapters/crypto-node.ts";
import { LinuxHostProbe } from "../adapters/host-linux.ts";
import { LinuxHostMutator } from "../adapters/host-mutator-linux.ts";
import { lookupGroupId } from "../adapters/os-groups.ts";
import { openAiPlanner } from "../adapters/planner-openai.ts";
import { acquireStateLock } from "../adapters/state-lock.ts";
import { SqliteTransactionStore } from "../adapters/transaction-sqlite.ts";
import { audit } from "../app/audit-log.ts";
import { DaemonService, type ServiceExtras } from "../app/daemon-service.ts";
import type { DaemonDeps, HostsFeature, StepProposer } from "../app/deps.ts";
import { readHostIdentity } from "../app/host-identity.ts";
import { HostRegistry } from "../app/hosts.ts";
import { localCommandHost } from "../app/hosts-handlers.ts";
import { ResourceRegistry } from "../app/resources.ts";
import { systemdResourceProvider } from "../app/unit-resources.ts";
import { LOCAL_HOST } from "../core/host-id.ts";
import { riskOnlyPolicy } from "../core/policy/risk-only.ts";
import type { Action, ActionContext } from "../core/catalogue/action.ts";
import type { LogReadPolicy } from "../core/catalogue/log-policy.ts";
import { ttyNrOfStat, groupsOfStatus, type SameUserPolicy } from "../core/approval.ts";
import { CATALOGUE } from "../core/catalogue/index.ts";
import type { Config } from "../config/schema.ts";
import type { PolicyEngine } from "../ports/policy-engine.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { Clock, HostProbe } from "../ports/host-probe.ts";
import type { TransactionStore } from "../ports/transaction-store.ts";
import { configDir, runtimeDir, stateDir, systemCheckpointCopy, type DaemonMode } from "./paths.ts";
import { selectBackend } from "./select-backend.ts";
import { skillsSetup, type SkillGateFlags } from "./skills-gates.ts";
import type { SkillsHandle } from "../app/skills/handlers.ts";
import { skillResourceProvider } from "../app/skills/resources.ts";
import type { SkillsService } from "../app/skills/service.ts";

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
}

/** A composed daemon: its service, where it keeps state and sockets, and how to stop it. */
export interface ComposedDaemon {
  service: DaemonService;
  stateDir: string;
  runtimeDir: string;
  /** SIGHUP: reload the policy directory (the old set stays on error); the line says what happened. */
  reloadPolicy(): Promise<string>;
  /** Opens the stores now (the system daemon does this at start; embedded mode waits for the first need). */
  openStores(): { transactions: TransactionStore; audit: AuditStore };
  close(): Promise<void>;
}

/**
 * The composition root shared by `hostgate daemon` and the embedded daemon: the only place that picks
 * adapters for the ports. Stores open lazily (read-only queries never touch SQLite); on opening, any
 * transaction a stopped daemon left `executing` becomes `unknown` and is recorded in the audit chain.
 */
export async function composeDaemon(config: Config, opts: ComposeOptions): Promise<ComposedDaemon> {
  const announce = opts.announce ?? ((line: string) => process.stderr.write(`hostgate: ${line}\n`));
  const host = opts.host ?? new LinuxHostProbe();
  const clock = opts.clock ?? { now: () => Date.now() };
  const identity = await readHostIdentity(host);
  const backend = await selectBackend(config.backend, host);
  announce(backend.startup_line);
  if (backend.warning) announce(backend.warning.replace(/^hostgate: /, ""));
  const state = stateDir(opts.mode, config.state.dir);
  const runtime = runtimeDir(opts.mode, state);
  const config_dir = configDir(opts.mode);
  // WriteFile refuses hostgate's own state, sockets and configuration (issue 12).
  const resolved = (p: string): string[] => {
    try {
      const real = realpathSync(p);
      return real === p ? [p] : [p, real];
    } catch {
      return [p];
    }
  };
  const protected_paths = [state, runtime, config_dir].flatMap(resolved);
  const readable = config.logs.readable ?? (opts.mode === "system" ? "adm" : "all");
  const logs_readable: LogReadPolicy = readable === "all" ? { kind: "all" } : readable === "adm" ? { kind: "group", name: "adm", gid: lookupGroupId("adm") } : { kind: "paths", paths: readable };
  const ctx: ActionContext = { host, clock, family: identity.family, units: backend.units, mutator: new LinuxHostMutator(), hash: nodeCrypto, self_pid: process.pid, protected_paths, logs_readable };

  // The checkpoint copy: configured, else for the system daemon an append-only file outside the state directory.
  const copySetting = config.audit.checkpoint_copy ?? (opts.mode === "system" ? systemCheckpointCopy() : undefined);
  const copyTarget: CheckpointCopyTarget | undefined = copySetting === undefined ? undefined : copySetting.endsWith("/") ? { type: "directory", path: copySetting } : { type: "file", path: copySetting };
  if (copyTarget) protected_paths.push(checkpointCopyPath(copyTarget));
  let transactions: TransactionStore | null = null;
  let auditStore: AuditStore | null = null;
  let releaseLock: (() => void) | null = null;
  const openAudit = (): AuditStore => {
    if (auditStore) return auditStore;
    releaseLock ??= acquireStateLock(state);
    if (copyTarget?.type === "file" || copyTarget?.type === "directory") {
      const file = checkpointCopyPath(copyTarget);
      deps.facts.checkpoint_copy = file;
      if (opts.mode === "system") {
        // The daemon's user must not be able to rewrite the evidence of how far the chain grew (issue 12).
        const st = ensureAppendOnly(file);
        deps.facts.checkpoint_copy_protection = st.append_only ? `append-only (chattr +a), owner uid ${st.owner_uid}` : `NOT append-only: ${st.note ?? "unknown"}`;
        if (!st.append_only) announce(`audit checkpoint copy ${file} is not append-only (${st.note ?? "unknown"}); the daemon's user could rewrite it`);
      }
    }
    auditStore = openAuditStore(state, {
      configDir: config_dir,
      checkpointEvery: config.audit.checkpoint_every,
      checkpointIdleMs: config.audit.checkpoint_idle_ms,
      // Receipts (hgr_…) are among the redactor's built-in kinds (core/redact/rules.ts); these are extra.
      secretPatterns: config.audit.secret_patterns,
      readOnlyFallback: true,
      onWarning: (line: string) => { announce(line); },
      ...(copyTarget ? { checkpointCopy: copyTarget } : {}),
    });
    const pin = pinPath(config_dir, state);
    deps.facts.audit_key_pin = existsSync(pin) ? pin : `not pinned (${pin} could not be written)`;
    return auditStore;
  };
  const openTransactions = (): TransactionStore => {
    if (transactions) return transactions;
    releaseLock ??= acquireStateLock(state);
    const store = new SqliteTransactionStore(join(state, "state.db"));
    const interrupted = store.recoverInterrupted(clock.now());
    for (const id of interrupted) {
      void audit(openAudit(), "daemon.recovered", "daemon", { transaction_id: id, host: store.get(id)?.host ?? LOCAL_HOST, status: "unknown", message: "daemon stopped while the step ran; not re-run" }, true).catch(() => undefined);
    }
    transactions = store;
    return store;
  };
  // Same-user approvals (separation none): refused by the system daemon, allowed (and labelled) embedded.
  const sameUser: SameUserPolicy = config.approval.same_user ?? (opts.mode === "system" ? "deny" : "allow");
  const hosts = new HostRegistry();
  hosts.register({ id: LOCAL_HOST, hostname: identity.hostname, ctx, simulated_systemd: backend.type === "mock" });
  const resources = new ResourceRegistry();
  resources.register(systemdResourceProvider(ctx.units));
  // The hosts feature (inventory, SSH, Cedar) loads on first use: start-up stays light for clients that never
  // touch it. A policy directory that does not load fails every hosts call with its error (fail closed).
  let hostsP: Promise<HostsFeature> | null = null;
  let hostsClose: (() => void) | null = null;
  const hostsFeature = (): Promise<HostsFeature> => (hostsP ??= (async () => {
    const [{ composeHosts }, { loadRiskEngine }] = await Promise.all([import("./hosts.ts"), import("../adapters/shell-parser.ts")]);
    const h = composeHosts(config, {
      mode: opts.mode,
      stateDir: state,
      hideDirs: protected_paths,
      onTrustedFirstUse: (name, fingerprint) => {
        void audit(openAudit(), "exec.host_key_trusted", "daemon", { name, fingerprint, reason: "exec.host_keys: tofu" }, true).catch(() => undefined);
      },
    });
    hostsClose = () => { h.close(); };
    return { ...h, engine: loadRiskEngine() };
  })());
  // RunCommand on the daemon's own host: approved commands through the local executor (issue 19).
  ctx.remote = localCommandHost(hostsFeature);
  // Every path that judges a command answers to the configured policy: without a policy directory the
  // risk-only default; with one, the Cedar engine the hosts feature loads (exec_on_host's), for local too.
  const policy = async (): Promise<PolicyEngine> => (config.policy.dir ? (await hostsFeature()).policy ?? riskOnlyPolicy : riskOnlyPolicy);
  // Skills: gates now (cheap, read once), the service and its adapters on first use.
  const setup = skillsSetup(config, opts.mode, opts.skills ?? { install: false, exec: false });
  let skillsService: Promise<SkillsService> | null = null;
  const skills: SkillsHandle = {
    gates: setup.gates,
    service: () => (skillsService ??= Promise.all([import("./skills.ts"), import("../app/skills/launch-policy.ts"), import("../adapters/shell-parser.ts")]).then(([m, { judgeSkillLaunch }, { loadRiskEngine }]) => {
      const engine = loadRiskEngine();
      return m.composeSkills(config, { mode: opts.mode, stateDir: state, setup, audit: openAudit, crypto: nodeCrypto, clock, assess: async (launch) => judgeSkillLaunch(launch, { engine, policy: await policy() }) });
    })),
    close: () => { void skillsService?.then((s) => { s.close(); }); },
  };
  resources.register(skillResourceProvider(() => skills.service()));
  const deps: DaemonDeps = {
    skills,
    ctx,
    hosts,
    resources,
    policy,
    catalogue: opts.catalogue ?? CATALOGUE,
    hostname: identity.hostname,
    clock,
    crypto: nodeCrypto,
    transactions: openTransactions,
    audit: openAudit,
    hostsFeature,
    llm: opts.llm !== undefined ? opts.llm : config.planner.mode === "llm" && config.planner.llm
      ? openAiPlanner({ ...config.planner.llm, api_key: config.planner.llm.api_key_env ? process.env[config.planner.llm.api_key_env] : undefined })
      : null,
    facts: {
      mode: opts.mode === "system" ? "system daemon" : "embedded daemon",
      pid: String(process.pid),
      backend: `${backend.type} (${backend.reason})`,
      backend_type: backend.type,
      ...(backend.warning ? { backend_warning: backend.warning } : {}),
      state_dir: state,
      runtime_dir: runtime,
      logs_readable: typeof readable === "string" ? readable : readable.join(", "),
      daemon_uid: String(process.getuid?.() ?? -1),
      approval_same_user: sameUser,
    },
    approval: { same_user: sameUser },
    exposure: exposureSettings(config),
    // The approving process's controlling terminal, read by the daemon itself (never claimed by the client).
    ttyOf: async (pid: number) => {
      try {
        return ttyNrOfStat(await host.readText(`/proc/${pid}/stat`));
      } catch {
        return null;
      }
    },
    // The front's supplementary groups, for doctor's separation check (a group may open the admin socket).
    groupsOf: async (pid: number) => {
      try {
        return groupsOfStatus(await host.readText(`/proc/${pid}/status`));
      } catch {
        return null;
      }
    },
  };
  return {
    service: new DaemonService(deps, opts.extras ?? {
      planCommand: async (input, caller) => {
        const [{ assessCommand }, { loadRiskEngine }] = await Promise.all([import("../app/assess-command.ts"), import("../adapters/shell-parser.ts")]);
        const { execDecisionFor } = await import("../app/hosts-handlers.ts");
        return assessCommand(input, { engine: loadRiskEngine(), policy: await policy(), caller, targetPolicy: (a, command, shell, target, who) => execDecisionFor(deps, a, command, shell, target, who) });
      },
    }),
    stateDir: state,
    runtimeDir: runtime,
    openStores: () => ({ transactions: openTransactions(), audit: openAudit() }),
    reloadPolicy: async () => (hostsP ? (await hostsFeature()).reloadPolicy() : "SIGHUP: the hosts feature is not loaded yet; policies load at its first use"),
    close: async () => {
      hostsClose?.();
      skills.close();
      transactions?.close();
      auditStore?.close();
      releaseLock?.();
      await backend.units.close();
    },
  };
}
