import type { SameUserPolicy } from "../core/approval.ts";
import type { DaemonMode } from "../core/approval-proof.ts";
import type { Approver } from "../core/approver.ts";
import type { Action, ActionContext, RiskLevel } from "../core/catalogue/action.ts";
import type { ApprovalConsole } from "../ports/approval-console.ts";
import type { PasskeyStore } from "../ports/passkey-store.ts";
import type { WebAuthn } from "../ports/webauthn.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { PlanNotifier } from "../ports/plan-notifier.ts";
import type { Crypto } from "../ports/crypto.ts";
import type { Executor } from "../ports/executor.ts";
import type { Clock } from "../ports/host-probe.ts";
import type { PolicyEngine } from "../ports/policy-engine.ts";
import type { TransactionStore } from "../ports/transaction-store.ts";
import type { HostRegistry } from "./hosts.ts";
import type { ResourceRegistry } from "./resources.ts";
import type { CallerSlots, ExecSettings } from "./exec-on-host.ts";
import type { Inventory } from "./inventory.ts";
import type { Sandboxes } from "./sandbox.ts";
import type { RiskEngine } from "../core/risk/index.ts";
import type { Tracer } from "../core/trace.ts";

/**
 * The hosts feature (docs/hosts.md), composed on first use by daemon/hosts-feature.ts: inventory, SSH executor,
 * the policy service's engine (null: none configured), gate settings, the risk engine and doctor findings.
 */
export interface HostsFeature {
  inventory: Inventory;
  /** SSH hosts. */
  executor: Executor;
  /** The daemon's own host (`local`). */
  local: Executor;
  /** Which sandbox each host has. */
  sandboxes: Sandboxes;
  /** exec_on_host calls running per caller (exec.max_per_caller). */
  slots: CallerSlots;
  policy: PolicyEngine | null;
  settings: ExecSettings;
  /** The login user when neither the inventory nor ssh_config names one (exec.user, else the daemon's user). */
  default_user: string;
  engine: Promise<RiskEngine>;
  doctor(): Promise<DoctorFinding[]>;
}

/** One finding a feature adds to doctor (daemon/feature.ts). */
export interface DoctorFinding {
  level: "ok" | "warn";
  check: string;
  message: string;
}
import type { SkillsHandle } from "./skills/handlers.ts";

export type { StepProposer } from "../ports/step-proposer.ts";
import type { StepProposer } from "../ports/step-proposer.ts";
import type { ExposureSettings } from "../core/toolsets.ts";

/**
 * Everything the daemon's use cases need, built by the composition root (daemon/compose.ts). Stores are
 * opened on first use (`transactions()`, `audit()`), so read-only queries never touch SQLite.
 */
export interface DaemonDeps {
  /** The local host's action context (the same as `hosts.get("local").ctx`). */
  ctx: ActionContext;
  /** Host id → action context; `local` always, remote hosts once registered. */
  hosts: HostRegistry;
  /** Resource providers by URI scheme. */
  resources: ResourceRegistry;
  /** Skills (issue 11); absent in daemons composed without them (then the skills methods answer `unavailable`). */
  skills?: SkillsHandle;
  /**
   * The PolicyEngine for command lines judged without a target host (plan_command without `target`, skills_execute
   * launches): the configured Cedar policy when `policy.dir` is set (the hosts feature's engine, so SIGHUP reloads
   * it and a directory that does not load fails the call), else the risk-only default. Narrow-only either way.
   */
  policy(): Promise<PolicyEngine>;
  catalogue: readonly Action[];
  /** The local host's own name. */
  hostname: string;
  clock: Clock;
  crypto: Crypto;
  transactions(): TransactionStore;
  audit(): AuditStore;
  /** null: the deterministic planner. */
  llm: StepProposer | null;
  /** The hosts feature, built on first use (absent in daemons composed without it, e.g. some tests). */
  hostsFeature?: () => Promise<HostsFeature>;
  /** The composed features whose doctor findings doctor lists, each check prefixed by the feature's name. */
  features?: readonly { name: string; doctor?: () => Promise<DoctorFinding[]> }[];
  /** Fan-out bounds of `query { hosts }` (tests): hosts at once (default exec.fanout_concurrency), per-host timeout in ms. */
  fanout?: { concurrency?: number; timeout_ms?: number };
  /** Facts for doctor: backend selection, state paths, sockets. */
  facts: Record<string, string>;
  /** Read-only actions that cannot answer on `local`, with the reason (app/local-availability.ts); `describe` says it. */
  local_unavailable?: Record<string, string>;
  /**
   * The exposure configuration (config `tools.*` + `exec.enabled`): the daemon refuses a method whose tool it hides
   * (app/exposure.ts). Absent: the defaults (every group on, exec_on_host off).
   */
  exposure?: ExposureSettings;
  /** The approval console (issue 23; daemon/console/), absent in daemons composed without it: plan results then carry no console URL. */
  console?: ApprovalConsole;
  /** Who is told of each new plan (config console.notify), absent when nobody is. */
  notifier?: PlanNotifier;
  /** Confirm window of a step that reverts unless confirmed, in seconds (config `approval.confirm_window_s`; default 120). */
  confirm_window_s?: number;
  /** Arms the daemon's revert timer for a confirm deadline (ms since the epoch); absent in daemons composed without it. */
  scheduleRevert?: (deadline: number) => void;
  /**
   * Approval policy (core/approval.ts, core/approval-proof.ts): whether same-user approvals (separation none) are
   * allowed, the risk level from which only a passkey approval mints a receipt (null: none), and which daemon this
   * is (a passkey approval on the embedded daemon is "convenience, same user": core/approval-proof.ts passkeySeparation).
   */
  approval: { same_user: SameUserPolicy; passkey_required_from: RiskLevel | null; daemon_mode: DaemonMode };
  /**
   * Who approves and how (core/approver.ts approverOf: `sudo hostgate approve` for the system daemon's root-only admin
   * socket), set by the daemon once its admin socket exists; absent: plain `hostgate approve` (the embedded daemon).
   */
  approver?: Approver;
  /** Enrolled passkeys and outstanding WebAuthn challenges (state.db), opened on first use. */
  passkeys(): PasskeyStore;
  /** The WebAuthn ceremonies (adapters/webauthn.ts). */
  webauthn: WebAuthn;
  /**
   * This process's tracer (issue 25; core/trace.ts): every request is a span and the use cases and adapters add
   * theirs under it. Absent: tracing is off.
   */
  tracer?: Tracer;
  /** The controlling terminal (tty_nr, 0 = none) of a local process, from /proc/<pid>/stat; null when unknown. */
  ttyOf(pid: number): Promise<number | null>;
  /** The supplementary group ids of a local process, from /proc/<pid>/status; null when unknown. */
  groupsOf(pid: number): Promise<number[] | null>;
}
