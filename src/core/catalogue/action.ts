import type { z } from "zod";
import type { ExecOutcome } from "../exec.ts";
import type { Hasher } from "../../ports/hasher.ts";
import type { HostConnection } from "../../ports/host-connection.ts";
import type { HostMutator } from "../../ports/host-mutator.ts";
import type { Clock, HostProbe } from "../../ports/host-probe.ts";
import type { UnitManagerSet } from "../../ports/unit-manager.ts";
import type { X509Parser } from "../../ports/x509.ts";
import type { LogReadPolicy } from "./log-policy.ts";
import type { Capability } from "./needs.ts";

/** How dangerous an action or command is, ordered low < medium < high < critical: defined once in core/risk-level.ts. */
export { RISK_LEVELS, type RiskLevel } from "../risk-level.ts";
import type { RiskLevel } from "../risk-level.ts";

/** Whether an action can change the host. Declared explicitly on every action; never inferred from risk. */
export type Access = "read_only" | "mutating";

/** Distribution families, from os-release `ID` / `ID_LIKE`. `other` is any Linux we cannot place. */
export type DistroFamily = "debian" | "fedora" | "arch" | "suse" | "alpine" | "other";
export const DISTRO_FAMILIES: readonly DistroFamily[] = ["debian", "fedora", "arch", "suse", "alpine", "other"];

/** Caller roles (core/caller.ts). */
export type { Role } from "../caller.ts";
import type { Role } from "../caller.ts";
import type { Toolset } from "../toolsets.ts";

/** What an action handler may use. Everything that touches the OS comes through a port. */
export interface ActionContext {
  host: HostProbe;
  clock: Clock;
  /** The detected distro family of the host the action runs on. */
  family: DistroFamily;
  /** The systemd managers of the host (system + represented user managers); see ports/unit-manager.ts. */
  units: UnitManagerSet;
  /** The only way to change the host; used by `MutatingAction.apply` alone, never by `preview` or `run`. */
  mutator: HostMutator;
  /** SHA-256 for previews and preconditions (core cannot import node:crypto). */
  hash: Hasher;
  /** The pid of the daemon process, which SignalProcess refuses to signal. */
  self_pid: number;
  /**
   * hostgate's own paths on this host, which WriteFile refuses: the state directory (keys, state.db, audit.db),
   * the runtime directory (sockets), the configuration file and the key-pin directory. Absolute, normalised.
   */
  protected_paths: readonly string[];
  /** Which log files ReadLogFile may return (configuration `logs.readable`). */
  logs_readable: LogReadPolicy;
  /** Parses certificates for ListCertificates (ports/x509.ts); absent, that action answers `unavailable`. */
  x509?: X509Parser;
  /** Directories ListCertificates walks (configuration `certificates.dirs`); absent: its default. Absolute. */
  certificate_dirs?: readonly string[];
  /**
   * What RunCommand needs (the `exec` capability): set on `local` by the composition root and on every
   * inventory host's context by the host registry (app/hosts.ts).
   */
  remote?: RemoteHost;
  /**
   * The capabilities this host offers (core/catalogue/needs.ts). Absent: every port present (`exec` only with
   * `remote`). An action needing one that is missing is refused `unavailable` before its ports are touched.
   */
  capabilities?: readonly Capability[];
  /** Why the host offers fewer capabilities than a host of its kind would (e.g. its typed ports could not be built); refusals quote it. */
  capabilities_note?: string;
  /**
   * A remote host's connection (ports/host-connection.ts): the SSH facts audit entries name, whether changes can
   * get root there (checked at plan, before anyone approves), its systemd path. Absent on `local`.
   */
  connection?: HostConnection;
  /**
   * The probe a change reads the host through (issue 24/20): `preview`, `apply` (its re-checks) and a revert's
   * `capture` / `restore` get a context whose `host` is this one ({@link changeContext}); direct read-only tools
   * never do, and stay at the login's privilege. On an SSH host (adapters/host-ssh-preview.ts) it reads as the
   * login first and, on a host configured `become: sudo`, what the login may not read as root through fixed
   * `sudo -n` argv; its `stat` reports device and inode. Absent (`local`): `host` itself.
   */
  preview_host?: HostProbe;
  /**
   * Set per call by the query path (app/query.ts): an action that redacts its answer itself (a log window
   * redacted before its filter runs, a unit file) reports here how many secrets the answer it returns had
   * replaced, so provenance's `redactions` counts them (the generic redaction after it sees only markers).
   */
  redacted?: (count: number) => void;
}

/** The judge's answer for one command on one remote host (risk engine + policy gate, core/policy/gate.ts). */
export interface RemoteJudgement {
  decision: "allow" | "deny" | "require_approval" | "require_biometric";
  risk_level: RiskLevel;
  signals: { id: string; reason: string }[];
  reasons: string[];
}

/**
 * A host as RunCommand sees it: who it is (`name` as asked, `address` and `port` dialed, `user` the login
 * user — both null for `local`, where no login happens —, `machine` the inventory entry it was identified as
 * when that is another name, else null), how a command is judged, how it runs.
 */
export interface RemoteHost {
  name: string;
  address: string;
  port: number | null;
  user: string | null;
  machine: string | null;
  provider: string;
  judge(command: string, shell: "sh" | "bash"): Promise<RemoteJudgement>;
  run(command: string, shell: "sh" | "bash", timeoutSec: number): Promise<ExecOutcome>;
}

interface ActionBase<P extends z.ZodType, O extends z.ZodType> {
  /** PascalCase catalogue name, e.g. `GetDiskUsage`. The direct tool is its snake_case form. */
  name: string;
  /** One line for humans and models. */
  title: string;
  /** What it returns and when to use it; shown as the tool description. */
  description: string;
  params: P;
  output: O;
  risk_level: RiskLevel;
  /** Families this action is offered on; `all` for cross-distro actions. */
  families: readonly DistroFamily[] | "all";
  min_role: Role;
  /**
   * Exposure groups (toolsets, core/toolsets.ts ACTION_TOOLSETS): a read's direct tool belongs to them, and
   * find_actions' `toolset` filter finds any action, read or change, in them. A mutating action never becomes a tool.
   */
  toolsets: readonly Toolset[];
  /** True when the output contains host-derived text (file content, command output, names). */
  host_derived: boolean;
  /**
   * What the action needs of a host (core/catalogue/needs.ts); absent: read-only → `files`, mutating →
   * `files` + `mutate`. A host without one of them refuses the action before any port is touched.
   */
  needs?: readonly Capability[];
}

/** A read-only action: `run` inspects the host and must not change it. Exposed as a direct tool. */
export interface ReadOnlyAction<P extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends ActionBase<P, O> {
  access: "read_only";
  run(params: z.infer<P>, ctx: ActionContext): Promise<z.infer<O>>;
}

/**
 * The exact rendering of what a mutating action will do (DESIGN.md, Words: preview). `text` is what a human
 * reads at `hostgate approve`; `current` / `intended` are structured state before and after. The
 * preview_hash is SHA-256 over the canonical JSON of this object, so it must be deterministic for the
 * same params and host state.
 */
export interface Preview {
  summary: string;
  text: string;
  current?: unknown;
  intended?: unknown;
  /** Loud, human-facing warnings (e.g. "ESSENTIAL packages would be removed"); also repeated in `text`. */
  warnings?: string[];
  /**
   * A risk above the action's own for this step (WriteFile into a cron or systemd unit directory: critical); plan
   * records the higher of the two as the transaction's risk_level. Never lowers it. Derived from the params (and,
   * for WriteFile, the path with its directory's links resolved); the model sees the step's risk_level.
   */
  risk_level?: RiskLevel;
  /**
   * What the model is shown instead of `summary`, `text`, `current` and `intended`, when the preview holds
   * host state the model may not read (WriteFile: the current file's content, hash, size and mode). The
   * approver sees everything; the preview_hash covers everything, this included. Absent: the generic rule of
   * `agentPreview` (core/transaction/agent-preview.ts).
   */
  agent?: { summary: string; text: string; intended?: unknown };
  /**
   * Set by plan (app/plan.ts) on a step of an action whose `revert` applies: the confirm window in seconds. After
   * apply the daemon restores the prior state unless `hostgate confirm <transaction_id>` arrives within it
   * (docs/actions.md, "Confirm windows"). Shown to the approver and the model; covered by the preview_hash.
   */
  confirm?: { window_s: number };
}

/**
 * Confirm-or-auto-revert ("commit confirmed", issue 24) for a change that can cut the operator off (firewall
 * rules, network sysctls, DNS, sshd options). `capture` records the state `restore` puts back; execute calls it
 * under the execute lock right before `apply` and stores its answer (JSON) in the transaction, so a restarted
 * daemon can still restore it. Both use the same ports as `apply` (never `preview`'s alone). `restore` throws
 * HostgateError when it cannot put the prior state back; the transaction then ends `unknown`, audited.
 */
export interface RevertSpec<P> {
  /** Whether this step is reverted unless confirmed (SetSysctl: network keys only). Absent: always. */
  applies?(params: P): boolean;
  capture(params: P, ctx: ActionContext): Promise<unknown>;
  restore(params: P, ctx: ActionContext, prior: unknown): Promise<void>;
}

/**
 * A mutating action: only ever run by the daemon's execute path with a valid receipt, never as a direct
 * tool. `preview` must not change the host; `apply` performs the change and returns its output.
 * `apply` receives the approved preview (already re-computed under the lock and matched against the
 * receipt's preview_hash) so it can turn the state the human saw into a precondition (WriteFile: the
 * content hash; SignalProcess: the process start time). Failures throw HostgateError: `action_failed`
 * (ran and failed), `precondition_failed` (host changed since the preview), `timeout` (outcome unknown).
 */
export interface MutatingAction<P extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends ActionBase<P, O> {
  access: "mutating";
  preview(params: z.infer<P>, ctx: ActionContext): Promise<Preview>;
  apply(params: z.infer<P>, ctx: ActionContext, approved: Preview): Promise<z.infer<O>>;
  /** Confirm-or-auto-revert: present on actions that can cut the operator off (see {@link RevertSpec}). */
  revert?: RevertSpec<z.infer<P>>;
}

/**
 * The context a change's preview, apply and revert run with: `host` is the context's `preview_host` when it has
 * one (see {@link ActionContext.preview_host}), else the context unchanged. Used by app/plan.ts, app/execute.ts
 * and app/revert.ts only.
 */
export function changeContext(ctx: ActionContext): ActionContext {
  return ctx.preview_host === undefined ? ctx : { ...ctx, host: ctx.preview_host };
}

/** Whether a step of `action` with `params` runs under a confirm window ({@link RevertSpec.applies}). */
export function revertApplies(action: Action, params: unknown): boolean {
  if (action.access !== "mutating" || action.revert === undefined) return false;
  return action.revert.applies === undefined || action.revert.applies(params);
}

/** Any catalogue entry. */
export type Action = ReadOnlyAction | MutatingAction;

/** Declares a mutating action (see {@link defineReadOnlyAction}). */
export function defineMutatingAction<P extends z.ZodType, O extends z.ZodType>(action: MutatingAction<P, O>): MutatingAction<P, O> {
  return action;
}

/**
 * Declares a read-only action; the identity function that pins the generic types so handlers are checked
 * against their own params and output schemas.
 */
export function defineReadOnlyAction<P extends z.ZodType, O extends z.ZodType>(action: ReadOnlyAction<P, O>): ReadOnlyAction<P, O> {
  return action;
}

/** `GetDiskUsage` → `get_disk_usage` (DESIGN.md: a direct tool is the snake_case of its action name). */
export function toolNameOf(actionName: string): string {
  return actionName.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2").toLowerCase();
}

/**
 * `get_disk_usage` → `GetDiskUsage`: the action a direct tool's name stands for (the inverse of
 * {@link toolNameOf} for the catalogue's names, which have no acronyms; a catalogue test checks every one).
 * Used by read_on_hosts, which names the tool it fans out. A name that is not snake_case comes back unchanged
 * in its parts, so the daemon answers it `unknown_action`.
 */
export function actionNameOf(toolName: string): string {
  return toolName.split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
}
