import { HostgateError, toHostgateError, describeIssues } from "../core/errors.ts";
import { LOCAL_HOST } from "../core/host-id.ts";
import { confine, unconfinableReason, usesDbus, wantsHostNetworkView, type HostSandbox } from "../core/sandbox/confine.ts";
import type { HostRecord } from "../core/inventory/record.ts";
import { judge, type GateDecision, type GateSettings } from "../core/policy/gate.ts";
import { execPolicyRequest, policyResource, type PolicyPrincipal } from "../core/policy/exec-request.ts";
import type { RiskAssessment, RiskEngine } from "../core/risk/index.ts";
import { LIMITS } from "../core/risk/index.ts";
import { LIMITS as ANSWER_LIMITS } from "../core/limits.ts";
import type { JsonValue } from "../core/audit/canonical.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import type { Executor } from "../ports/executor.ts";
import type { PolicyEngine } from "../ports/policy-engine.ts";
import { ExecOnHostInputSchema, type ExecHostResult, type ExecOnHostOutput } from "../ipc/hosts.ts";
import { audit } from "./audit-log.ts";
import { viaOf } from "./connection-audit.ts";
import type { ConnectionFacts } from "../ports/host-connection.ts";
import { redactExecResults } from "./exec-redact.ts";
import type { Inventory } from "./inventory.ts";
import type { Sandboxes, SandboxTarget } from "./sandbox.ts";
import { NO_TRACER, type Tracer } from "../core/trace.ts";

/**
 * exec_on_host, in the daemon: judge the command (risk engine, then policy, per host) before any connection,
 * audit the decision (fail closed), then run it over SSH on one host or fan out to many with bounded
 * concurrency, redact secrets from the output (app/exec-redact.ts; `redactions` counts them), and group identical
 * outputs. Critical commands are always refused; with no policy every
 * command is refused unless `exec.allow_unverified`. `require_approval` turns into a plan (a `RunCommand`
 * transaction) when the daemon wires `requestApproval`; so does `require_biometric`, whose RunCommand preview records
 * that decision so only a passkey approval can mint its receipt (core/approval-proof.ts passkeyRequirement).
 */

/** Settings from `exec.*` and `risk.*`. */
export interface ExecSettings extends GateSettings {
  max_output_bytes: number;
  fanout_concurrency: number;
  max_hosts: number;
  /** The longest an unapproved (sandboxed) command may run, in seconds; `timeout_sec: 0` means this. */
  max_timeout_sec: number;
  /** Concurrent exec_on_host calls one caller may have running (used with `ExecDeps.slots`). */
  max_per_caller: number;
  /** Directories and files of the daemon's own host hidden inside its sandbox (state, runtime, config, keys). */
  local_hide_dirs: readonly string[];
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
  /** SSH hosts. */
  executor: Executor;
  /** The daemon's own host (`local`). */
  local: Executor;
  /** Which sandbox each host has (probed once per host). */
  sandboxes: Sandboxes;
  audit: AuditStore;
  settings: ExecSettings;
  /** Concurrent calls per caller (exec.max_per_caller); absent: no limit (tests of one call). */
  slots?: CallerSlots | undefined;
  /** Turns a require_approval decision into a RunCommand plan; absent: such commands are refused. */
  requestApproval?: (req: { hosts: string[]; command: string; argv: string[]; shell: string; timeout_sec: number; decision: GateDecision }) => Promise<ApprovalPlan>;
  /** Traces the gate decision (span `gate exec_on_host`: decision, risk level, policy source, host count; never the command). Absent: off. */
  tracer?: Tracer | undefined;
}

/** The caller as the gate sees it (role, untrusted client name, kernel uid) and the audit actor string. */
export interface ExecCaller extends PolicyPrincipal {
  actor: string;
}

/**
 * Concurrent exec_on_host calls per caller (`exec.max_per_caller`), keyed by the kernel uid of the caller (its
 * actor over TCP): one caller's long commands cannot take every SSH session of a host, or every fan-out slot,
 * from the others. `take` throws `exec_busy` at the limit and returns the release function.
 */
export class CallerSlots {
  private readonly used = new Map<string, number>();

  take(key: string, max: number): () => void {
    const n = this.used.get(key) ?? 0;
    if (n >= max) {
      throw new HostgateError("exec_busy", `${n} exec_on_host calls of this caller are still running; the limit is ${max}`, {
        hint: "Wait for one to finish (or cancel it), or ask an admin to raise exec.max_per_caller.",
      });
    }
    this.used.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.used.get(key) ?? 1) - 1;
      if (left <= 0) this.used.delete(key);
      else this.used.set(key, left);
    };
  }
}

/** Bytes of command output one answer may carry (the rest of the 1 MiB answer cap is for the envelope). */
const OUTPUT_BUDGET_BYTES = Math.floor(ANSWER_LIMITS.answerBytes * 0.75);

/**
 * Fits a fan-out's outputs in one answer: when the distinct outputs (stated once each, see groupsOf) are over
 * OUTPUT_BUDGET_BYTES, every stream is cut to an equal share and its result marked `truncated`: the answer is
 * smaller, never dropped.
 */
function fitOutputs(results: ExecHostResult[]): ExecHostResult[] {
  const distinct = new Map<string, number>();
  for (const r of results) {
    const k = outcomeKey(r);
    if (!distinct.has(k)) distinct.set(k, Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr));
  }
  const total = [...distinct.values()].reduce((a, b) => a + b, 0);
  if (total <= OUTPUT_BUDGET_BYTES) return results;
  const share = Math.floor(OUTPUT_BUDGET_BYTES / (2 * distinct.size));
  const cut = (t: string): string => (Buffer.byteLength(t) <= share ? t : Buffer.from(t).subarray(0, share).toString("utf8"));
  return results.map((r) => {
    const stdout = cut(r.stdout);
    const stderr = cut(r.stderr);
    return stdout === r.stdout && stderr === r.stderr ? r : { ...r, stdout, stderr, truncated: true };
  });
}

/** Names and hosts are one line: no control character at all (a newline is how S018 smuggled a command). */
const CONTROL = /[\x00-\x1f\x7f]/;

function invalid(msg: string, hint: string): never {
  throw new HostgateError("invalid_params", `exec_on_host: ${msg}`, { hint });
}

/**
 * The daemon's own host as policies see it: name `local`, backend `local` (a policy that means the daemon's
 * host says `resource.backend == "local"`), no tags, no SSH endpoint: commands run through the local executor.
 */
export const LOCAL_RECORD: HostRecord = { name: LOCAL_HOST, primary_ip: "localhost", provider: "static", backend: "local", meta: {}, tags: [] };

/** Where one resolved host's commands go: the executor and the endpoint (the local executor ignores it). */
export async function sandboxTarget(r: HostRecord, deps: Pick<ExecDeps, "local" | "executor" | "inventory">): Promise<SandboxTarget> {
  if (r === LOCAL_RECORD) return { key: LOCAL_HOST, executor: deps.local, target: { host: "localhost", port: 0 } };
  const ssh = r.ssh!;
  const jumps = await Promise.all(ssh.proxy_jump.map(async (spec) => {
    const j = parseJump(spec);
    const rec = await deps.inventory.resolveTarget(j.host);
    return { host: rec.ssh?.host ?? j.host, port: j.port !== 22 ? j.port : rec.ssh?.port ?? 22, user: j.user ?? rec.ssh?.user, identity_files: rec.ssh?.identity_files };
  }));
  const target = { host: ssh.host, port: ssh.port, user: ssh.user, identity_files: ssh.identity_files };
  // `become: sudo` changes who a non-root login's sandbox starts as (app/sandbox.ts), so it is part of the key.
  const key = `${[...jumps, target].map((h) => `${h.user ?? ""}@${h.host}:${h.port}`).join(" -> ")}${ssh.become === "sudo" ? " (become: sudo)" : ""}`;
  return { key, executor: deps.executor, target, jumps, become: ssh.become };
}

/** Parses a ProxyJump element `[user@]host[:port]`. */
function parseJump(spec: string): { host: string; port: number; user?: string } {
  const m = /^(?:([^@]+)@)?(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(spec);
  if (!m) throw new HostgateError("invalid_target", `ProxyJump element ${JSON.stringify(spec)} is not [user@]host[:port]`, { hint: "Fix the ProxyJump line in the ssh config." });
  return { host: m[2]!, port: m[3] ? Number(m[3]) : 22, ...(m[1] ? { user: m[1] } : {}) };
}

/** A unique, unguessable name for one run (the systemd unit suffix). */
function runId(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
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
 * The gate of one exec_on_host call: the risk engine's assessment and the policy per host (core/policy/gate.ts), the
 * strictest decision deciding; an `allow` then needs every host's sandbox (probed into `sandboxes`), else it becomes
 * require_approval (fail closed).
 */
async function gateDecision(records: readonly HostRecord[], assessment: RiskAssessment, command: string, shell: string, caller: ExecCaller, deps: ExecDeps, targets: readonly SandboxTarget[], sandboxes: Map<HostRecord, HostSandbox | HostgateError>): Promise<GateDecision> {
  const per = records.map((r) => judge(assessment, deps.policy, execPolicyRequest(assessment, command, shell, caller, r), deps.settings));
  let decision = combine(per);
  // Allowed without a human: every host must confine the command (fail closed). A host with no sandbox, or one
  // that cannot enforce the network grant, turns the whole call into a plan, like a policy's require_approval.
  if (decision.decision === "allow") {
    await mapLimit(records, deps.settings.fanout_concurrency, async (r) => {
      const i = records.indexOf(r);
      try {
        sandboxes.set(r, await deps.sandboxes.forHost(targets[i]!));
      } catch (e) {
        sandboxes.set(r, toHostgateError(e));
      }
    });
    const unconfinable: string[] = [];
    for (const r of records) {
      const sb = sandboxes.get(r);
      if (sb instanceof HostgateError || !sb) continue;
      const why = unconfinableReason(sb, decision.network);
      if (why !== null) unconfinable.push(`${r.name}: ${why}`);
    }
    if (unconfinable.length > 0) {
      decision = { ...decision, decision: "require_approval", reasons: [`unapproved commands run only in a sandbox, and ${unconfinable.join("; ")}`, ...decision.reasons] };
    }
  }
  return decision;
}

/**
 * The exec_on_host use case. Throws `invalid_params` / `invalid_target` for bad input (before anything is
 * judged), `refused` when the gate says no (audited), `audit_unavailable` when the decision cannot be
 * recorded (nothing runs). Per-host connection failures are results with `code`, not throws.
 */
export async function execOnHost(input: unknown, caller: ExecCaller, deps: ExecDeps, signal?: AbortSignal): Promise<(ExecOnHostOutput & { redactions: number }) | { approval: ApprovalPlan; decision: ExecOnHostOutput["decision"] }> {
  const parsed = ExecOnHostInputSchema.safeParse(input);
  if (!parsed.success) invalid(describeIssues(parsed.error, "input"), "Pass { host | hosts, command, name?, shell?, timeout_sec? }.");
  const q = parsed.data;
  const names = q.hosts ?? [q.host!];
  if (names.length > deps.settings.max_hosts) invalid(`${names.length} hosts; the limit is ${deps.settings.max_hosts}`, "Split the fan-out or raise exec.max_hosts.");
  // Each host once: a repeated host would run the command again there, and every run holds one of the host's
  // per-run sandbox uids (a re-trial held 400 of the 606 with `hosts: ["local"] × 100`).
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) invalid(`hosts lists ${twice} more than once`, "Name each host once; the command runs once on each.");
  if (new TextEncoder().encode(q.command).length > LIMITS.maxInputBytes) invalid(`command is longer than ${LIMITS.maxInputBytes} bytes`, "Split the work into smaller commands.");
  const bad = /[\x00-\x08\x0b-\x1f\x7f]/.exec(q.command);
  if (bad) invalid(`command contains control character U+${bad[0].charCodeAt(0).toString(16).padStart(4, "0")}`, "Only tab and newline are accepted in a command.");
  for (const [field, v] of [["name", q.name], ...names.map((n) => ["host", n] as const)] as const) {
    if (v !== undefined && CONTROL.test(v)) invalid(`${field} contains control characters (corpus S018)`, "Names and hosts are single plain words.");
  }
  const shell = q.shell ?? "sh";
  const timeoutSec = q.timeout_sec ?? 60;
  // What runs unapproved ends: no timeout (0) or a longer one is the configured maximum.
  const sandboxTimeoutSec = timeoutSec === 0 ? deps.settings.max_timeout_sec : Math.min(timeoutSec, deps.settings.max_timeout_sec);

  // Resolve every target before judging or dialing: an invalid one refuses the whole call.
  const records = await Promise.all(names.map((n) => (n === LOCAL_HOST ? Promise.resolve(LOCAL_RECORD) : deps.inventory.resolveTarget(n))));
  const endpoints = new Map<string, string>();
  for (const r of records) {
    if (!r.ssh && r !== LOCAL_RECORD) throw new HostgateError("invalid_target", `${r.name} (${r.provider}) has no SSH endpoint`, { hint: "Containers from the docker provider are not SSH targets; pick a host with the ssh capability (get_host_details)." });
    // The same address and port under two names (an alias, an IP literal) is the same machine, whatever the login.
    const at = r.ssh ? `${r.ssh.host}:${r.ssh.port}` : LOCAL_HOST;
    const first = endpoints.get(at);
    if (first !== undefined) invalid(`${first} and ${r.name} are the same host (${at})`, "Name each host once; the command runs once on each.");
    endpoints.set(at, r.name);
  }

  const engine = await deps.engine;
  const assessment: RiskAssessment = engine.assess(q.command, { interpreter: shell });
  // ss/ip see the host's sockets (its namespace, no Unix sockets); anything else gets a namespace of its own.
  const programs = assessment.commands.filter((c) => !c.dynamic).map((c) => c.name);
  const hostView = wantsHostNetworkView(programs);
  const busClient = usesDbus(programs);
  const targets = await Promise.all(records.map((r) => sandboxTarget(r, deps)));
  const sandboxes = new Map<HostRecord, HostSandbox | HostgateError>();
  const decision = await (deps.tracer ?? NO_TRACER).span("gate exec_on_host", { attributes: { "hostgate.hosts": records.length } }, async (span) => {
    const d = await gateDecision(records, assessment, q.command, shell, caller, deps, targets, sandboxes);
    span.setAttributes({ "hostgate.decision": d.decision, "hostgate.risk_level": d.risk_level, "hostgate.policy.source": d.policy.source, "hostgate.network": d.network });
    return d;
  });
  const wireDecision = { decision: decision.decision, risk_level: decision.risk_level, reasons: decision.reasons };
  const argv = assessment.commands.flatMap((c) => c.argv);
  const basePayload: Record<string, JsonValue> = {
    hosts: records.map((r) => r.name),
    // The machine each name was judged as (issue 19): inventory name, normalised address, port, backend.
    machines: records.map((r) => (r.machine ? { name: r.machine.name, address: r.machine.address, port: r.machine.port, backend: r.machine.backend } : null)),
    command: q.command,
    shell,
    decision: decision.decision,
    risk_level: decision.risk_level,
    signals: assessment.signals.map((s) => s.id),
    policy_source: decision.policy.source,
    policies: decision.policy.policies,
    reasons: decision.reasons,
    network: decision.network,
    sandbox: records.map((r) => {
      const sb = sandboxes.get(r);
      return sb === undefined ? null : sb instanceof HostgateError ? `unreachable: ${sb.code}` : sb.mechanism ?? "none";
    }),
  };
  // Every decision is recorded before anything else happens; a failed write refuses (fail closed). A command
  // that will run and may change something is the intent to mutate: committed with fsync first. A low-risk
  // (read-only) one joins the store's group commit, still committed before anything is sent.
  await audit(deps.audit, "exec.decision", caller.actor, basePayload, decision.decision !== "allow" || assessment.risk_level !== "low");

  if ((decision.decision === "require_approval" || decision.decision === "require_biometric") && deps.requestApproval) {
    const approval = await deps.requestApproval({ hosts: records.map((r) => r.name), command: q.command, argv, shell, timeout_sec: timeoutSec, decision });
    return { approval, decision: wireDecision };
  }
  if (decision.decision !== "allow") {
    const why = decision.decision === "require_biometric" ? "needs a passkey approval (plan it; a human approves it with a passkey in hostgate console)"
      : decision.decision === "require_approval" ? "needs a human approval" : "was refused";
    const sentTo = records.length === 1 ? records[0]!.name : `${records.length} hosts`;
    // A name in no inventory is the likelier mistake than the command (issue 22): the headline says so first.
    const unknown = records.filter((r) => r !== LOCAL_RECORD && policyResource(r).backend === "literal").map((r) => r.name);
    const headline = unknown.length > 0
      ? `blocked: unknown host ${unknown.join(", ")}: in no inventory (search_hosts lists the known hosts; an ssh_config alias works too), so it was judged as a literal address with no tags, which a policy must grant explicitly; nothing was sent to ${sentTo}`
      : `blocked: ${decision.reasons[0] ?? why}; nothing was sent to ${sentTo}`;
    throw new HostgateError("refused", headline, {
      hint: unknown.length > 0 ? "Check the name with search_hosts (or add the host to the inventory); to run on an unlisted address, an admin must grant literal hosts in a policy (docs/hosts.md)."
        : decision.decision === "require_approval" ? "Plan it (plan with a RunCommand step) and ask a human to run hostgate approve." : "Use plan_command to see why; change the command or ask an admin to change the policy.",
      details: { ...wireDecision, policy: decision.policy, ...(unknown.length > 0 ? { unknown_hosts: unknown } : {}) },
    });
  }

  // The connection each host's command ran on (login user, verified host key), for the result entry (issue 20).
  const vias = new Map<HostRecord, ConnectionFacts>();
  const runOne = async (r: HostRecord): Promise<ExecHostResult> => {
    const display = names.length === 1 && q.name ? q.name : r.name;
    const ip = r.ssh?.host ?? r.primary_ip;
    const failed = (h: HostgateError): ExecHostResult => ({ host: display, ip, exit_code: null, signal: null, timed_out: false, duration_ms: 0, stdout: "", stderr: "", truncated: false, error: `${h.message}${h.hint ? ` (${h.hint})` : ""}`, code: h.code, group: null, sandbox: null });
    const sb = sandboxes.get(r);
    if (sb instanceof HostgateError) return failed(sb);
    if (!sb) return failed(new HostgateError("backend_error", `${r.name}: no sandbox was probed`));
    try {
      const t = targets[records.indexOf(r)]!;
      const wrapped = confine([shell, "-c", q.command], sb, { network: decision.network, timeout_sec: sandboxTimeoutSec, run_id: runId(), hide_dirs: r === LOCAL_RECORD ? deps.settings.local_hide_dirs : [], host_network_view: hostView, bus_client: busClient });
      const out = await t.executor.exec({ target: t.target, jumps: t.jumps, command: wrapped.command, kill_command: wrapped.kill_command, argv, timeout_ms: sandboxTimeoutSec * 1000, max_output_bytes: deps.settings.max_output_bytes, signal });
      if (out.connection) vias.set(r, out.connection);
      return { host: display, ip, exit_code: out.exit_code, signal: out.signal, timed_out: out.timed_out, duration_ms: out.duration_ms, stdout: out.stdout, stderr: out.stderr, truncated: out.truncated, error: out.error ?? "", code: null, group: null, sandbox: `${sb.mechanism} as ${sb.identity}, network ${decision.network}` };
    } catch (e) {
      return failed(toHostgateError(e));
    }
  };
  const release = deps.slots?.take(caller.uid !== null ? `uid:${caller.uid}` : caller.actor, deps.settings.max_per_caller) ?? ((): void => undefined);
  let results: ExecHostResult[];
  let redactions: number;
  try {
    // Output is host-derived text: redacted per host before grouping (identical outputs still group) and before
    // fitting, so the cut is made on what is returned (issue 19).
    const redacted = redactExecResults(await mapLimit(records, deps.settings.fanout_concurrency, runOne));
    redactions = redacted.redactions;
    results = fitOutputs(redacted.results);
  } finally {
    release();
  }
  await audit(deps.audit, "exec.result", caller.actor, {
    command: q.command,
    // The resolved host, never the caller's `name` label (which is only a display name; kept as `label`).
    results: results.map((r, i) => ({ host: records[i]!.name, ...(r.host !== records[i]!.name ? { label: r.host } : {}), ip: r.ip, exit_code: r.exit_code, signal: r.signal, timed_out: r.timed_out, duration_ms: Math.round(r.duration_ms), stdout_bytes: r.stdout.length, stderr_bytes: r.stderr.length, truncated: r.truncated, error: r.error, code: r.code, ...withVia(vias.get(records[i]!)) })),
  });
  return { ...(q.hosts ? grouped(results) : { results, groups: [] }), decision: wireDecision, redactions };
}

/** `{ via }` for a host whose command ran over SSH (app/connection-audit.ts; exec_on_host never uses sudo), else nothing. */
function withVia(facts: ConnectionFacts | undefined): { via?: Record<string, JsonValue> } {
  const via = viaOf(facts, false);
  return via ? { via } : {};
}

function outcomeKey(r: ExecHostResult): string {
  return JSON.stringify([r.exit_code, r.signal, r.stdout, r.stderr, r.error, r.code]);
}

/**
 * Fan-out: groups of hosts whose outcome and output are identical, in first-seen order (`groups`), and the per-host
 * results pointing at their group, the output itself stated once, in the group (`results`). Each result's outcome
 * key is computed once.
 */
function grouped(results: ExecHostResult[]): Pick<ExecOnHostOutput, "results" | "groups"> {
  const groups = new Map<string, { index: number; group: ExecOnHostOutput["groups"][number] }>();
  const pointed = results.map((r) => {
    const k = outcomeKey(r);
    let g = groups.get(k);
    if (g) g.group.hosts.push(r.host);
    else groups.set(k, (g = { index: groups.size, group: { hosts: [r.host], exit_code: r.exit_code, signal: r.signal, stdout: r.stdout, stderr: r.stderr, error: r.error } }));
    return { ...r, stdout: "", stderr: "", group: g.index };
  });
  return { results: pointed, groups: [...groups.values()].map((g) => g.group) };
}
