import { HostgateError, toHostgateError, describeIssues } from "../core/errors.ts";
import type { HostRecord } from "../core/inventory/record.ts";
import { shellJoin } from "../core/inventory/target.ts";
import { judge, type GateDecision, type GateSettings } from "../core/policy/gate.ts";
import { execPolicyRequest, type PolicyPrincipal } from "../core/policy/exec-request.ts";
import type { RiskAssessment, RiskEngine } from "../core/risk/index.ts";
import { LIMITS } from "../core/risk/index.ts";
import type { JsonValue } from "../core/audit/canonical.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { Executor } from "../ports/executor.ts";
import type { PolicyEngine } from "../ports/policy-engine.ts";
import { ExecOnHostInputSchema, type ExecHostResult, type ExecOnHostOutput } from "../ipc/hosts.ts";
import { audit } from "./audit-log.ts";
import type { Inventory } from "./inventory.ts";

/**
 * exec_on_host, in the daemon: judge the command (risk engine, then policy, per host) before any connection,
 * audit the decision (fail closed), then run it over SSH on one host or fan out to many with bounded
 * concurrency, and group identical outputs. Critical commands are always refused; with no policy every
 * command is refused unless `exec.allow_unverified`. `require_approval` turns into a plan (a `RunCommand`
 * transaction) when the daemon wires `requestApproval`; `require_biometric` is refused until a passkey path
 * exists.
 */

/** Settings from `exec.*` and `risk.*`. */
export interface ExecSettings extends GateSettings {
  max_output_bytes: number;
  fanout_concurrency: number;
  max_hosts: number;
}

/** The plan answered for `require_approval` (built by the daemon's plan use case). */
export interface ApprovalPlan {
  transaction_id: string;
  preview_hash: string;
  [k: string]: unknown;
}

export interface ExecDeps {
  engine: RiskEngine | Promise<RiskEngine>;
  /** The configured policy (null, or an engine that is not `configured`: none, so exec is refused unless allow_unverified). */
  policy: PolicyEngine | null;
  inventory: Inventory;
  executor: Executor;
  audit: AuditStore;
  settings: ExecSettings;
  /** Turns a require_approval decision into a RunCommand plan; absent: such commands are refused. */
  requestApproval?: (req: { hosts: string[]; command: string; argv: string[]; shell: string; timeout_sec: number; decision: GateDecision }) => Promise<ApprovalPlan>;
}

/** The caller as the gate sees it (role, untrusted client name, kernel uid) and the audit actor string. */
export interface ExecCaller extends PolicyPrincipal {
  actor: string;
}

/** Names and hosts are one line: no control character at all (a newline is how S018 smuggled a command). */
const CONTROL = /[\x00-\x1f\x7f]/;

function invalid(msg: string, hint: string): never {
  throw new HostgateError("invalid_params", `exec_on_host: ${msg}`, { hint });
}

/** Parses a ProxyJump element `[user@]host[:port]`. */
function parseJump(spec: string): { host: string; port: number; user?: string } {
  const m = /^(?:([^@]+)@)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(spec);
  if (!m) throw new HostgateError("invalid_target", `ProxyJump element ${JSON.stringify(spec)} is not [user@]host[:port]`, { hint: "Fix the ProxyJump line in the ssh config." });
  return { host: m[2]!, port: m[3] ? Number(m[3]) : 22, ...(m[1] ? { user: m[1] } : {}) };
}

/** Runs `items` through `fn` with at most `limit` at once, keeping order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The strictest per-host decision decides the call (a fan-out is refused or planned as a whole). */
function combine(per: GateDecision[]): GateDecision {
  const order = ["allow", "require_approval", "require_biometric", "deny"];
  return per.reduce((a, b) => (order.indexOf(b.decision) > order.indexOf(a.decision) ? b : a));
}

/**
 * The exec_on_host use case. Throws `invalid_params` / `invalid_target` for bad input (before anything is
 * judged), `refused` when the gate says no (audited), `audit_unavailable` when the decision cannot be
 * recorded (nothing runs). Per-host connection failures are results with `code`, not throws.
 */
export async function execOnHost(input: unknown, caller: ExecCaller, deps: ExecDeps, signal?: AbortSignal): Promise<ExecOnHostOutput | { approval: ApprovalPlan; decision: ExecOnHostOutput["decision"] }> {
  const parsed = ExecOnHostInputSchema.safeParse(input);
  if (!parsed.success) invalid(describeIssues(parsed.error, "input"), "Pass { host | hosts, command, name?, shell?, timeout_sec? }.");
  const q = parsed.data;
  const names = q.hosts ?? [q.host!];
  if (names.length > deps.settings.max_hosts) invalid(`${names.length} hosts; the limit is ${deps.settings.max_hosts}`, "Split the fan-out or raise exec.max_hosts.");
  if (new TextEncoder().encode(q.command).length > LIMITS.maxInputBytes) invalid(`command is longer than ${LIMITS.maxInputBytes} bytes`, "Split the work into smaller commands.");
  const bad = /[\x00-\x08\x0b-\x1f\x7f]/.exec(q.command);
  if (bad) invalid(`command contains control character U+${bad[0].charCodeAt(0).toString(16).padStart(4, "0")}`, "Only tab and newline are accepted in a command.");
  for (const [field, v] of [["name", q.name], ...names.map((n) => ["host", n] as const)] as const) {
    if (v !== undefined && CONTROL.test(v)) invalid(`${field} contains control characters (corpus S018)`, "Names and hosts are single plain words.");
  }
  const shell = q.shell ?? "sh";
  const timeoutSec = q.timeout_sec ?? 60;

  // Resolve every target before judging or dialing: an invalid one refuses the whole call.
  const records = await Promise.all(names.map((n) => deps.inventory.resolveTarget(n)));
  for (const r of records) {
    if (!r.ssh) throw new HostgateError("invalid_target", `${r.name} (${r.provider}) has no SSH endpoint`, { hint: "Containers from the docker provider are not SSH targets; pick a host with the ssh capability (get_host_details)." });
  }

  const engine = await deps.engine;
  const assessment: RiskAssessment = engine.assess(q.command, { interpreter: shell });
  const per = records.map((r) => judge(assessment, deps.policy, execPolicyRequest(assessment, q.command, shell, caller, r), deps.settings));
  const decision = combine(per);
  const wireDecision = { decision: decision.decision, risk_level: decision.risk_level, reasons: decision.reasons };
  const argv = assessment.commands.flatMap((c) => c.argv);
  const basePayload: Record<string, JsonValue> = {
    hosts: records.map((r) => r.name),
    command: q.command,
    shell,
    decision: decision.decision,
    risk_level: decision.risk_level,
    signals: assessment.signals.map((s) => s.id),
    policy_source: decision.policy.source,
    policies: decision.policy.policies,
    reasons: decision.reasons,
  };
  // Every decision is recorded before anything else happens; a failed write refuses (fail closed). A command
  // that will run and may change something is the intent to mutate: committed with fsync first. A low-risk
  // (read-only) one joins the store's group commit, still committed before anything is sent.
  await audit(deps.audit, "exec.decision", caller.actor, basePayload, decision.decision !== "allow" || assessment.risk_level !== "low");

  if (decision.decision === "require_approval" && deps.requestApproval) {
    const approval = await deps.requestApproval({ hosts: records.map((r) => r.name), command: q.command, argv, shell, timeout_sec: timeoutSec, decision });
    return { approval, decision: wireDecision };
  }
  if (decision.decision !== "allow") {
    const why = decision.decision === "require_biometric" ? "needs a passkey approval, which hostgate cannot take yet"
      : decision.decision === "require_approval" ? "needs a human approval" : "was refused";
    throw new HostgateError("refused", `blocked: ${decision.reasons[0] ?? why}; nothing was sent to ${records.length === 1 ? records[0]!.name : `${records.length} hosts`}`, {
      hint: decision.decision === "require_approval" ? "Plan it (plan with a RunCommand step) and ask a human to run hostgate approve." : "Use plan_command to see why; change the command or ask an admin to change the policy.",
      details: { ...wireDecision, policy: decision.policy },
    });
  }

  // `exec`: the login shell becomes the command's shell (one process less per run; same pid, so the
  // executor's process-group kill still applies).
  const remote = `exec ${shellJoin([shell, "-c", q.command])}`;
  const timeoutMs = timeoutSec * 1000;
  const runOne = async (r: HostRecord): Promise<ExecHostResult> => {
    const display = names.length === 1 && q.name ? q.name : r.name;
    const ssh = r.ssh!;
    try {
      const jumps = await Promise.all(ssh.proxy_jump.map(async (spec) => {
        const j = parseJump(spec);
        const rec = await deps.inventory.resolveTarget(j.host);
        return { host: rec.ssh?.host ?? j.host, port: j.port !== 22 ? j.port : rec.ssh?.port ?? 22, user: j.user ?? rec.ssh?.user, identity_files: rec.ssh?.identity_files };
      }));
      const out = await deps.executor.exec({ target: { host: ssh.host, port: ssh.port, user: ssh.user, identity_files: ssh.identity_files }, jumps, command: remote, argv, timeout_ms: timeoutMs, max_output_bytes: deps.settings.max_output_bytes, signal });
      return { host: display, ip: ssh.host, output: out.stdout, exit_code: out.exit_code, signal: out.signal, timed_out: out.timed_out, duration_ms: out.duration_ms, stdout: out.stdout, stderr: out.stderr, truncated: out.truncated, error: out.error ?? "", code: null, group: null };
    } catch (e) {
      const h = toHostgateError(e);
      return { host: display, ip: ssh.host, output: "", exit_code: null, signal: null, timed_out: false, duration_ms: 0, stdout: "", stderr: "", truncated: false, error: `${h.message}${h.hint ? ` (${h.hint})` : ""}`, code: h.code, group: null };
    }
  };
  const results = await mapLimit(records, deps.settings.fanout_concurrency, runOne);
  await audit(deps.audit, "exec.result", caller.actor, {
    command: q.command,
    results: results.map((r) => ({ host: r.host, ip: r.ip, exit_code: r.exit_code, signal: r.signal, timed_out: r.timed_out, duration_ms: Math.round(r.duration_ms), stdout_bytes: r.stdout.length, stderr_bytes: r.stderr.length, truncated: r.truncated, error: r.error, code: r.code })),
  });
  return { results: q.hosts ? groupOutputs(results) : results, groups: q.hosts ? groupsOf(results) : [], decision: wireDecision };
}

function outcomeKey(r: ExecHostResult): string {
  return JSON.stringify([r.exit_code, r.signal, r.stdout, r.stderr, r.error, r.code]);
}

/** Fan-out: groups of hosts whose outcome and output are identical, in first-seen order. */
function groupsOf(results: ExecHostResult[]): ExecOnHostOutput["groups"] {
  const groups = new Map<string, ExecOnHostOutput["groups"][number]>();
  for (const r of results) {
    const k = outcomeKey(r);
    const g = groups.get(k);
    if (g) g.hosts.push(r.host);
    else groups.set(k, { hosts: [r.host], exit_code: r.exit_code, signal: r.signal, stdout: r.stdout, stderr: r.stderr, error: r.error });
  }
  return [...groups.values()];
}

/** Fan-out: per-host results point at their group; the output itself is stated once, in the group. */
function groupOutputs(results: ExecHostResult[]): ExecHostResult[] {
  const index = new Map<string, number>();
  for (const r of results) if (!index.has(outcomeKey(r))) index.set(outcomeKey(r), index.size);
  return results.map((r) => ({ ...r, output: "", stdout: "", stderr: "", group: index.get(outcomeKey(r))! }));
}
