import { HostgateError, describeIssues } from "../core/errors.ts";
import type { Caller } from "../core/caller.ts";
import { LOCAL_HOST } from "../core/host-id.ts";
import type { PolicyDecision } from "../core/policy/decision.ts";
import { execPolicyRequest } from "../core/policy/exec-request.ts";
import { narrow } from "../core/policy/gate.ts";
import { RISK_ONLY_SOURCE, riskOnlyPolicy } from "../core/policy/risk-only.ts";
import type { PolicyEngine } from "../ports/policy-engine.ts";
import { LIMITS, type RiskAssessment, type RiskEngine } from "../core/risk/index.ts";

/**
 * plan_command / `hostgate risk`: judge a shell command line with the command-risk engine, without
 * connecting anywhere or changing anything. The decision is the PolicyEngine's (ports/policy-engine.ts);
 * the default one is the risk engine's decision table alone, and the output says so
 * (`policy.source = "risk_engine_only"`).
 */

const C0_EXCEPT_TAB_NEWLINE = /[\x00-\x08\x0b-\x1f]/;

export { AssessCommandInputSchema, CommandAssessmentSchema, type AssessCommandInput, type CommandAssessment } from "../ipc/plan-command.ts";
import { AssessCommandInputSchema, type CommandAssessment } from "../ipc/plan-command.ts";

/** Said when no policy judged (none configured, or `hostgate risk`, which loads none): not "no policy exists". */
const POLICY_NOTE = "No policy judged this: it is the command-risk engine's decision alone (with policy.dir set, the daemon's plan_command and exec_on_host apply the policy too). A policy may deny more, never allow what the engine denies.";


function utf8Bytes(s: string): number {
  return new TextEncoder().encode(s).length;
}

/**
 * Validates `input` and judges its command with `deps.engine` (or the promise of one: the engine loads its
 * wasm lazily). Throws HostgateError `invalid_params` for bad input (unknown
 * keys, empty or oversized command, control characters), with a hint saying what to change.
 */
export async function assessCommand(input: unknown, deps: {
  engine: RiskEngine | Promise<RiskEngine>;
  policy?: PolicyEngine;
  caller?: Caller;
  /** With `target`: exec_on_host's decision for that host (risk engine + policy gate, app/hosts-handlers.ts). */
  targetPolicy?: (a: RiskAssessment, command: string, shell: string, target: string, caller: Caller | null) => Promise<PolicyDecision>;
}): Promise<CommandAssessment> {
  const parsed = AssessCommandInputSchema.safeParse(input);
  if (!parsed.success) {
    throw new HostgateError("invalid_params", `plan_command: ${describeIssues(parsed.error, "input")}`, {
      hint: "Pass { command, target?, interpreter? } with command a non-empty string.",
    });
  }
  const { command, target, interpreter } = parsed.data;
  const bytes = utf8Bytes(command);
  if (bytes > LIMITS.maxInputBytes) {
    throw new HostgateError("invalid_params", `plan_command: command is ${bytes} bytes; the limit is ${LIMITS.maxInputBytes}`, {
      hint: "Split the work into smaller commands.",
      details: { bytes, limit: LIMITS.maxInputBytes },
    });
  }
  const bad = C0_EXCEPT_TAB_NEWLINE.exec(command);
  if (bad) {
    throw new HostgateError("invalid_params", `plan_command: command contains control character U+${bad[0].charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()} at index ${bad.index}`, {
      hint: "Remove NUL and other control characters; only tab and newline are accepted.",
      details: { index: bad.index },
    });
  }
  const e = await deps.engine;
  // With a target the line is judged as exec_on_host runs it: `sh -c` unless told otherwise.
  const shell = interpreter ?? (target !== undefined && deps.targetPolicy ? "sh" : "bash");
  const result = e.assess(command, { interpreter: shell });
  if (target !== undefined && deps.targetPolicy) {
    return toWire(result, await deps.targetPolicy(result, command, shell, target, deps.caller ?? null), target, shell);
  }
  // Without a target: the daemon's PolicyEngine (risk-only by default) for the local host, narrow-only.
  const policy = deps.policy ?? riskOnlyPolicy;
  const c = deps.caller;
  const who = { role: c?.role ?? "observer", client: c?.client_name ?? "", uid: c?.peer?.uid ?? null };
  const host = target ?? LOCAL_HOST;
  const verdict = policy.decide(execPolicyRequest(result, command, shell, who, { name: host, primary_ip: "", provider: "local", backend: "local", tags: [] }));
  return toWire(result, { decision: narrow(result, verdict), reasons: verdict.reasons, source: policy.name }, target ?? null, shell);
}

function toWire(r: RiskAssessment, decided: PolicyDecision, target: string | null, interpreter: string): CommandAssessment {
  const top = r.signals[0];
  const reason = top ? `command risk: ${top.reason}` : "command risk: only read-only commands the engine knows";
  return {
    decision: decided.decision,
    risk_level: r.risk_level,
    reason,
    signals: r.signals,
    commands: r.commands,
    target,
    interpreter,
    policy: { source: decided.source, note: decided.source === RISK_ONLY_SOURCE ? POLICY_NOTE : decided.reasons.join("; ") },
  };
}
